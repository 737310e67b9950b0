"""A small marimo notebook for tests/smoke/test_marimo.py: a drawing, an explorer, a player, a
quiz."""

import marimo

app = marimo.App()


@app.cell
def _():
    from autograd_viz import Value, explore

    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    z.backward()
    return explore, z


@app.cell
def _(z):
    z.draw()
    return


@app.cell
def _(explore):
    explore(lambda x, y: (x + y) * y, x=2, y=3)
    return


@app.cell
def _(z):
    z.animate()
    return


@app.cell
def _(z):
    from autograd_viz import quiz

    quiz(z)
    return


if __name__ == "__main__":
    app.run()
