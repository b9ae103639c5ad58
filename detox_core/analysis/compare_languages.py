"""The languages two or more systems are compared on: those picked that every system has
scores in, and why the others are left out (a partial submission, a preset that does not
cover the language)."""

from __future__ import annotations


def common_languages(frames: dict, picked: tuple[str, ...], answered_by: dict | None = None
                     ) -> tuple[dict, list[str], dict[str, list[str]], list[str]]:
    """Frames cut to the picked languages that every system has scores in; those languages,
    per system the picked languages its file does not answer (``answered_by``: the stored
    answered languages, else those with rows), and the picked languages answered by every
    system that the preset does not cover (no rows: n/a, not a missing answer)."""
    cut = {n: f[f["lang"].isin(picked)] for n, f in frames.items()}
    with_rows = {n: set(f["lang"]) for n, f in cut.items()}
    answered = {n: with_rows[n] | set((answered_by or {}).get(n) or ()) for n in cut}
    common = [c for c in picked if all(c in r for r in with_rows.values())]
    missing = {n: [c for c in picked if c not in a] for n, a in answered.items()}
    uncovered = [c for c in picked if c not in common and all(c in a for a in answered.values())
                 and not any(c in r for r in with_rows.values())]
    return ({n: f[f["lang"].isin(common)].reset_index(drop=True) for n, f in cut.items()}, common,
            {n: m for n, m in missing.items() if m}, uncovered)
