"""nn: the blog's MLP works as written, seeds are private, parameters and tags are right."""

from __future__ import annotations

import math
import random

import pytest

from autograd_viz import MLP, Layer, Neuron, Parameter, Value


def test_blog_mlp_has_37_parameters_all_trainable():
    model = MLP(2, [4, 4, 1], seed=0)
    params = model.parameters()
    assert len(params) == (2 * 4 + 4) + (4 * 4 + 4) + (4 * 1 + 1) == 37
    assert all(isinstance(p, Parameter) for p in params)
    assert len({id(p) for p in params}) == 37


def test_blog_mlp_is_relu_everywhere_and_linear_output_is_an_option():
    relu_net = MLP(2, [4, 4, 1], seed=0)
    assert all(n.nonlin for layer in relu_net.layers for n in layer.neurons)
    linear_out = MLP(2, [4, 4, 1], linear_output=True, seed=0)
    assert [n.nonlin for n in linear_out.layers[-1].neurons] == [False]
    assert all(n.nonlin for n in linear_out.layers[0].neurons)


def test_same_seed_gives_same_weights_and_leaves_global_random_alone():
    state = random.getstate()
    a = [p.data for p in MLP(2, [4, 4, 1], seed=7).parameters()]
    b = [p.data for p in MLP(2, [4, 4, 1], seed=7).parameters()]
    assert random.getstate() == state
    assert a == b
    assert a != [p.data for p in MLP(2, [4, 4, 1], seed=8).parameters()]


def test_unseeded_model_follows_the_global_random_seed_like_the_blog():
    random.seed(42)
    a = [p.data for p in MLP(2, [4, 4, 1]).parameters()]
    random.seed(42)
    b = [p.data for p in MLP(2, [4, 4, 1]).parameters()]
    assert a == b


def test_neuron_computes_relu_of_weighted_sum_plus_bias():
    n = Neuron(2, seed=1)
    n.w[0].data, n.w[1].data, n.b.data = 0.5, -1.0, 0.25
    assert n([2.0, 0.5]).data == pytest.approx(0.75)  # relu(1 - 0.5 + 0.25)
    assert n([0.0, 1.0]).data == 0.0  # relu(-0.75)
    n.nonlin = False
    assert n([0.0, 1.0]).data == pytest.approx(-0.75)


def test_neuron_outputs_are_tagged_with_their_neuron_and_inputs_named():
    model = MLP(2, [3, 1], seed=0)
    out = model([1.0, -1.0])
    assert out.tag is model.layers[-1].neurons[0]
    labels = {v.label for v in out.topological_order() if not v.parents}
    assert {"x1", "x2", "L1.n1.w1", "L2.n1.b"} <= labels


@pytest.mark.parametrize(
    ("act", "op", "expected"),
    [
        ("relu", "ReLU", 0.0),
        ("tanh", "tanh", math.tanh(-0.75)),
        ("sigmoid", "sigmoid", 1 / (1 + math.exp(0.75))),
        (None, "+", -0.75),
    ],
)
def test_neuron_applies_the_chosen_activation_and_tags_its_output(act, op, expected):
    n = Neuron(2, act=act, seed=1)
    n.w[0].data, n.w[1].data, n.b.data = 0.5, -1.0, 0.25
    out = n([0.0, 1.0])  # w·x + b = -0.75
    assert out.op == op and out.tag is n
    assert out.data == pytest.approx(expected)
    assert n.nonlin is (act is not None)


def test_mlp_act_reaches_every_layer_and_linear_output_only_the_last():
    model = MLP(2, [4, 4, 1], act="tanh", linear_output=True, seed=24)
    assert [[n.act for n in layer.neurons] for layer in model.layers] == [
        ["tanh"] * 4,
        ["tanh"] * 4,
        [None],
    ]
    out = model([1.0, -1.0])
    tagged = [v for v in out.topological_order() if v.tag is not None]
    assert [v.op for v in tagged] == ["tanh"] * 8 + ["+"]
    assert [v.tag.name for v in tagged][-1] == "L3.n1"
    assert Layer(2, 3, act="sigmoid", seed=0)([1.0, 2.0])[0].op == "sigmoid"


def test_old_nonlin_argument_still_chooses_relu_or_linear():
    assert Neuron(2, True, seed=0).act == "relu"
    assert Neuron(2, False, seed=0).act is None
    assert [n.act for n in Layer(2, 2, False, seed=0).neurons] == [None, None]


def test_layer_returns_a_list_or_a_single_value():
    assert isinstance(Layer(2, 3, seed=0)([1.0, 2.0]), list)
    assert isinstance(Layer(2, 1, seed=0)([1.0, 2.0]), Value)


def test_zero_grad_resets_every_parameter():
    model = MLP(2, [4, 1], seed=0)
    out = model([1.0, 2.0])
    (out * out + sum(p * p for p in model.parameters())).backward()
    assert any(p.grad != 0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0 for p in model.parameters())


def test_training_reduces_the_loss():
    model = MLP(2, [8, 1], linear_output=True, seed=3)
    xs = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    ys = [0.0, 1.0, 1.0, 0.0]

    def loss():
        return sum((model(x) - y) ** 2 for x, y in zip(xs, ys))

    first = loss().data
    for _ in range(200):
        total = loss()
        model.zero_grad()
        total.backward()
        for p in model.parameters():
            p.data -= 0.05 * p.grad
    assert loss().data < 0.5 * first


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MLP(2, [4, 1], seed=0)([1.0]), "MLP expects 2 inputs, got 1"),
        (lambda: Neuron(3, seed=0)([1.0, 2.0]), "expects 3 inputs, got 2"),
        (lambda: Neuron(0), "nin >= 1"),
        (lambda: Layer(2, 0), "nout >= 1"),
        (lambda: MLP(2, []), "at least one layer size"),
        (lambda: Neuron(2, act="softplus"), "act must be 'relu', 'tanh', 'sigmoid' or None"),
        (lambda: MLP(2, [1], act="Tanh"), "act must be 'relu', 'tanh', 'sigmoid' or None"),
        (lambda: Neuron(2, nonlin=False, act="tanh"), "pass only act="),
    ],
)
def test_wrong_shapes_are_explained(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_reprs_read_like_the_architecture():
    assert repr(MLP(2, [2, 1], linear_output=True, seed=0)) == (
        "MLP of [Layer of [ReLUNeuron(2), ReLUNeuron(2)], Layer of [LinearNeuron(2)]]"
    )
    assert repr(Neuron(3, act="sigmoid", seed=0)) == "SigmoidNeuron(3)"


def test_one_layer_size_given_as_a_number_is_explained_with_the_list_to_write():
    with pytest.raises(TypeError, match=r"list of layer sizes.*MLP\(2, \[4\]\)"):
        MLP(2, 4)
    assert len(MLP(2, [4]).layers[0].neurons) == 4  # what the message says to write


# ---- numpy numbers and other near misses: accepted where unambiguous, else explained -------


def test_numpy_sizes_and_seeds_build_the_same_model_as_ints():
    np = pytest.importorskip("numpy")
    expected = [p.data for p in MLP(2, [4, 1], seed=3).parameters()]
    for model in (
        MLP(2, [np.int64(4), 1], seed=3),
        MLP(2, np.array([4, 1]), seed=3),
        MLP(np.int64(2), (4, 1), seed=np.int64(3)),
    ):
        assert [p.data for p in model.parameters()] == expected
    assert len(Layer(2, np.int64(3), seed=0).neurons) == 3


@pytest.mark.parametrize(
    ("sizes", "error", "message"),
    [
        ("41", TypeError, r"MLP sizes must be a list of positive ints like \[4, 1\] .*"
                          r"got the string '41': write the numbers, e.g. MLP\(2, \[4, 1\]\)"),
        ([4.0, 1], TypeError, r"sizes must be a list of positive ints .*got 4\.0 in \[4\.0, 1\]"),
        ([True, 1], TypeError, r"got True in \[True, 1\]"),
        ([[4], 1], TypeError, r"got \[4\] in"),
        ([4, 0], ValueError, r"sizes must be a list of positive ints .*got 0 in \[4, 0\]"),
    ],
)  # fmt: skip
def test_layer_sizes_that_are_not_positive_ints_are_explained(sizes, error, message):
    with pytest.raises(error, match=message):
        MLP(2, sizes)


def test_the_string_41_is_not_answered_with_a_list_holding_the_string():
    with pytest.raises(TypeError) as info:
        MLP(2, "41")
    assert "['41']" not in str(info.value)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (lambda: MLP(2, [4, 1], seed=0), r"MLP expects a list of 2 inputs \(numbers or Values\), "
                                         r"got one float 1\.0; .*e\.g\. model\(\[1\.0, 2\.0\]\)"),
        (lambda: MLP(1, [1], seed=0), r"got one float 1\.0; wrap it in a list: model\(\[1\.0\]\)"),
        (lambda: Neuron(2, seed=0), r"n expects a list of 2 inputs"),
        (lambda: Layer(2, 3, seed=0), r"L expects a list of 2 inputs"),
    ],
)  # fmt: skip
def test_calling_a_model_with_one_number_says_to_pass_a_list(model, message):
    with pytest.raises(TypeError, match=message) as info:
        model()(1.0)
    assert "has no len()" not in str(info.value)


def test_a_string_as_inputs_is_refused_and_any_iterable_of_numbers_works():
    with pytest.raises(TypeError, match=r"got the string 'ab'"):
        MLP(2, [1], seed=0)("ab")
    model = MLP(2, [1], seed=0)
    assert model(x for x in (1.0, 2.0)).data == model([1.0, 2.0]).data


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MLP(2, [4, 1], seed=[1]), r"seed must be a whole number .*got list: \[1\]"),
        (lambda: MLP(2.0, [4, 1]), r"MLP's nin \(its number of inputs\) must be a positive int, "
                                   r"got 2\.0"),
        (lambda: Neuron("2"), r"Neuron's nin .* must be a positive int, got '2'"),
        (lambda: Layer(2, 3.0), r"Layer's nout .* must be a positive int, got 3\.0"),
    ],
)  # fmt: skip
def test_counts_and_seeds_of_the_wrong_kind_are_type_errors(make, message):
    with pytest.raises(TypeError, match=message):
        make()
