"""Calibration, in one place: maps from a preset's scores to what people say.

- :mod:`.rotation`: the 2022 shared task's rotation of each axis, with a preset's coefficients;
- :mod:`.fitted`: per-axis calibrators fitted on human judgements (isotonic or logistic), kept
  as JSON and applied by a preset that declares them (MERA ruDetox); the CLI's
  ``fit-calibrators`` and the Human vs automatic page write them;
- :mod:`.evaluation`: calibrators of one or more features, judged by leave-one-system-out
  cross-validation, and reliability curves (the Human vs automatic page's Calibration tab)."""
