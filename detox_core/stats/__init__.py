"""Statistics every layer can use: bootstrap intervals, paired tests, rank agreement, ROC-AUC, per-language means."""
