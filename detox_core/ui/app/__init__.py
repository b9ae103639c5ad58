"""The app's infrastructure: serving, sign-in and sessions, cached loaders and shared
resources (model pool, stores), widget state, rendering and escaping, the warm-up's line."""
