"""Submissions: a system's outputs, scored once, stored, explained.

- :mod:`.batch`: scoring submission files from the command line (``score``; :mod:`.batch_inputs`: what
  they are scored against);
- :mod:`.service`: validate an upload, score it once, store it; the sentence table;
- :mod:`.store`: the SQL store of scored submissions;
- :mod:`.explain`: the axis that limits J, and flags of a rewrite.

Live scoring's request and best rewrite are :mod:`detox_core.live`; the Delete baseline and seq2seq
rewriting :mod:`detox_core.rewriters`.
"""
