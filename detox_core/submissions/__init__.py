"""Submissions: a system's outputs, scored once, stored, explained.

- :mod:`.files`: scoring submission files from the command line (``score``);
- :mod:`.service`: validate an upload, score it once, store it; the sentence table;
- :mod:`.store`: the SQL store of scored submissions;
- :mod:`.explain`: the axis that limits J, and flags of a rewrite;
- :mod:`.live`: the Live scoring request, checked and bounded;
- :mod:`.baselines`: the Delete baseline and seq2seq rewriting.
"""
