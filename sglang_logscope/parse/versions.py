"""SGLang release strings → one comparable key (the only parser of version strings).

``release_key("0.5.10.post1")`` orders like PEP 440 (``packaging.version.Version``): release
numbers first, then pre-releases (``a`` < ``b`` < ``rc``, each *before* its final release), then
post-releases (``.postN`` or ``postN``, after it); ``.devN`` sorts before the release it leads to.
A local label (``+cu128``) is ignored; an epoch (``1!``) is not accepted.

The key is a plain tuple of ints so that it compares with literal release tuples
(``release_key(v) >= (0, 5, 17)``, ``release_key(v)[:3] < (0, 5, 3)``):

* a final release is its numbers, padded to three (``"0.5"`` → ``(0, 5, 0)``; zeros past the
  third are dropped, ``"0.5.9.0"`` → ``(0, 5, 9)``): for ``x.y.z`` exactly what is written;
* a post-release appends ``(-1, N, dev)`` to that (after the final, before ``x.y.z.1``);
* a pre-release (or a dev release of a final) lowers the last number by one and appends
  ``(_BEFORE, phase, N, post, dev)``: after every release of the lower number, before the final.
"""

from __future__ import annotations

import re

from ..errors import LogscopeError

__all__ = ["Version", "release_key"]

Version = tuple[int, ...]

#: Sorts after any real release number (the marker of "just before the next release").
_BEFORE = 2**63
_NONE = -1  # no post-release
_PHASES = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_DEV_OF_FINAL = -1  # ``1.0.dev1`` sorts before ``1.0a0``

_GRAMMAR = re.compile(
    r"v?(?P<release>\d{1,18}(?:\.\d{1,18}){0,15})"
    r"(?:[-_.]?(?P<phase>alpha|beta|preview|pre|rc|a|b|c)[-_.]?(?P<pre>\d{1,18})?)?"
    r"(?P<is_post>[-_.]?post[-_.]?(?P<post>\d{1,18})?)?"
    r"(?P<is_dev>[-_.]?dev[-_.]?(?P<dev>\d{1,18})?)?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?",
    re.IGNORECASE,
)


def release_key(text: str) -> Version:
    """``0.5.10.post1`` → (0, 5, 10, -1, 1, 2**63); raises LogscopeError when unreadable."""
    m = _GRAMMAR.fullmatch(text.strip())
    if m is None:
        raise LogscopeError(f"cannot read SGLang version {text[:40]!r} (expected e.g. 0.5.9)")
    release = [int(p) for p in m["release"].split(".")] + [0, 0]
    while len(release) > 3 and release[-1] == 0:
        release.pop()
    dev = _BEFORE if m["is_dev"] is None else int(m["dev"] or 0)
    post = _NONE if m["is_post"] is None else int(m["post"] or 0)
    phase = m["phase"]
    if phase is None and (post != _NONE or dev == _BEFORE):
        return tuple(release) if post == _NONE else (*release, -1, post, dev)
    release[-1] -= 1
    step = _DEV_OF_FINAL if phase is None else _PHASES[phase.lower()]
    return (*release, _BEFORE, step, int(m["pre"] or 0), post, dev)
