"""What pages draw: the sidebar, score cards and the preset picker, tables, the annotation
page, and the sections of each page (they read the app's infrastructure, never the reverse)."""
