"""The front ends: what shows a View to a person in a host — the anywidgets (`player`, `quiz`,
`explore`), the kernel-free inline player, the side-by-side table and the training view, over
the one player module and its styles in `static/` and the vendored KaTeX and reveal.js.
"""
