"""The exports: each static form of a View that needs no kernel — the animated SVG and GIF, the
filmstrip, the worksheet, the offline slide deck and the notebook as one HTML file — one module
each; `autograd_viz.export` gathers their public names.
"""
