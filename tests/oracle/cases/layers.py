"""The layers models are built from, beyond convolution and normalisation: Dense,
Embedding, Flatten/Unflatten, Dropout in inference, the recurrent layers (LSTM, GRU, RNN
and their cells: one and two layers, bidirectional, batch-first, with an initial state),
multi-head attention and the Transformer blocks. Every parameter is set to fixed values
(the frameworks' random initialisations differ), so the results are comparable."""

from __future__ import annotations

from tests.oracle.spec import Case, In

FAMILY = "layers"


def fixed(cell: str) -> str:
    """``cell`` with every parameter set to a fixed, irregular pattern, in the order of
    the parameters' names."""
    return (f"(lambda m: ([p.set_data(Tensor((np.sin(np.arange(p.size) * 1.37 + k) * 0.4)"
            f".reshape(p.shape).astype(ms.dtype_to_nptype(p.dtype)))) for k, (_, p) in "
            f"enumerate(sorted(m.parameters_and_names(), key=lambda t: t[0]))], m)[1])({cell})")


SETUPS = (
    ("nn.Dense(5, 3)", "{c}({x0})", (In((4, 5)),)),
    ("nn.Dense(5, 3, has_bias=False)", "{c}({x0})", (In((2, 4, 5)),)),
    ("nn.Dense(5, 3, activation='relu')", "{c}({x0})", (In((4, 5)),)),
    ("nn.Dense(5, 3, activation=nn.Tanh())", "{c}({x0})", (In((4, 5)),)),
    ("nn.BiDense(3, 4, 2)", "{c}({x0}, {x1})", (In((5, 3)), In((5, 4)))),
    ("nn.Flatten()", "{c}({x0})", (In((2, 3, 4)),)),
    ("nn.Flatten(0, 1)", "{c}({x0})", (In((2, 3, 4)),)),
    ("nn.Unflatten(1, (2, 3))", "{c}({x0})", (In((2, 6, 4)),)),
    ("nn.Identity()", "{c}({x0})", (In((2, 3)),)),
    ("nn.Dropout(p=0.3).set_train(False)", "{c}({x0})", (In((3, 4)),)),
    ("nn.Dropout(p=0.0)", "{c}({x0})", (In((3, 4)),)),
    ("nn.Dropout2d(p=0.5).set_train(False)", "{c}({x0})", (In((2, 3, 4, 4)),)),
    ("nn.Embedding(6, 4)", "{c}({x0})", (In((3, 5), "int32", "idx:6"),)),
    ("nn.Embedding(6, 4, padding_idx=2)", "{c}({x0})", (In((3, 5), "int32", "idx:6"),)),
    ("nn.LSTM(4, 5, batch_first=True)", "{c}({x0})", (In((2, 3, 4)),)),
    ("nn.LSTM(4, 5, num_layers=2)", "{c}({x0})", (In((3, 2, 4)),)),
    ("nn.LSTM(4, 5, bidirectional=True, batch_first=True)", "{c}({x0})", (In((2, 3, 4)),)),
    ("nn.LSTM(4, 5, has_bias=False)", "{c}({x0}, ({x1}, {x2}))",
     (In((3, 2, 4)), In((1, 2, 5)), In((1, 2, 5)))),
    ("nn.GRU(4, 5, batch_first=True)", "{c}({x0})", (In((2, 3, 4)),)),
    ("nn.GRU(4, 5, num_layers=2, bidirectional=True)", "{c}({x0})", (In((3, 2, 4)),)),
    ("nn.GRU(4, 5)", "{c}({x0}, {x1})", (In((3, 2, 4)), In((1, 2, 5)))),
    ("nn.RNN(4, 5, batch_first=True)", "{c}({x0})", (In((2, 3, 4)),)),
    ("nn.RNN(4, 5, nonlinearity='relu', num_layers=2)", "{c}({x0})", (In((3, 2, 4)),)),
    ("nn.RNN(4, 5, bidirectional=True)", "{c}({x0}, {x1})", (In((3, 2, 4)), In((2, 2, 5)))),
    ("nn.LSTMCell(4, 5)", "{c}({x0}, ({x1}, {x2}))", (In((2, 4)), In((2, 5)), In((2, 5)))),
    ("nn.GRUCell(4, 5)", "{c}({x0}, {x1})", (In((2, 4)), In((2, 5)))),
    ("nn.RNNCell(4, 5)", "{c}({x0}, {x1})", (In((2, 4)), In((2, 5)))),
    ("nn.RNNCell(4, 5, nonlinearity='relu')", "{c}({x0}, {x1})", (In((2, 4)), In((2, 5)))),
    ("nn.MultiheadAttention(8, 2)", "{c}({x0}, {x0}, {x0})", (In((3, 2, 8)),)),
    ("nn.MultiheadAttention(8, 2, batch_first=True)", "{c}({x0}, {x1}, {x1})",
     (In((2, 3, 8)), In((2, 4, 8)))),
    ("nn.MultiheadAttention(8, 4, batch_first=True)", "{c}({x0}, {x0}, {x0}, None, False)",
     (In((2, 3, 8)),)),
    ("nn.TransformerEncoderLayer(8, 2, 16, 0.0)", "{c}({x0})", (In((3, 2, 8)),)),
    ("nn.TransformerEncoderLayer(8, 2, 16, 0.0, 'gelu', batch_first=True, norm_first=True)",
     "{c}({x0})", (In((2, 3, 8)),)),
    ("nn.TransformerDecoderLayer(8, 2, 16, 0.0)", "{c}({x0}, {x1})",
     (In((3, 2, 8)), In((4, 2, 8)))),
    ("nn.Transformer(8, 2, 1, 1, 16, 0.0)", "{c}({x0}, {x1})",
     (In((3, 2, 8)), In((4, 2, 8)))),
)


def cases() -> list[Case]:
    out = []
    for setup, call, ins in SETUPS:
        name = setup + call.replace("{c}", "").replace("{x0}", "x").replace(
            "{x1}", "h").replace("{x2}", "c")
        out.append(Case(f"{name}{[s.shape for s in ins]}", FAMILY, call, ins,
                        setup=fixed(setup), rtol=1e-4, atol=1e-4))
    return out
