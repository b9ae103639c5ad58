"""Widgets shared by pages: score cards and the preset picker, tables, the annotation page."""
