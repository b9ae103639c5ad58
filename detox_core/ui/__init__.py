"""The only Streamlit-aware code of the package: cached loaders, sidebar, rendering."""
