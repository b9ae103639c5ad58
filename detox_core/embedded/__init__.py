"""The offline embedded preset: models the project trains from the corpus."""
