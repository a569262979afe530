"""What ``bench_models.py`` runs: its workloads (model file, entry, input shapes), its
cases (system and label), and the weights and inputs every system gets.

This file imports only the standard library at top level: the peer interpreters import it
in their workers.
"""

from __future__ import annotations

import os
import zlib
from typing import Any

from harness import ROOT
from models_bert import (
    BERT,
    BERT_BATCH,
    GPT,
    GPT_BATCH,
    bert_inputs,
    bert_labels,
    gpt_tokens,
)
from models_resnet import CLASSES
from models_vit import VIT, VIT_BATCH

MODELS = os.path.join(ROOT, "tests", "e2e", "models")
WORKLOADS = {  # workload -> (model file, entry, constructor args, input shape, title)
    "lenet": ("lenet.py", "LeNet5", (), (32, 1, 32, 32),
              "LeNet-5 forward, float32[32, 1, 32, 32]"),
    "resblock": ("resnet_block.py", "BasicBlock", (64, 64, 1), (8, 64, 56, 56),
                 "ResNet basic block (64 channels, stride 1, batch norm in inference), "
                 "float32[8, 64, 56, 56]"),
    "resnet18": ("resnet.py", "resnet18", (), (4, 3, 224, 224),
                 "ResNet-18 inference (eval mode: batch norm with moving statistics, 10 "
                 "classes), float32[4, 3, 224, 224]"),
    "resnet50": ("resnet.py", "resnet50", (), (4, 3, 224, 224),
                 "ResNet-50 inference (eval mode: batch norm with moving statistics, 10 "
                 "classes), float32[4, 3, 224, 224]"),
    "resnet18-train": ("resnet.py", "resnet18", (), (8, 3, 64, 64),
                       "ResNet-18 training step (batch statistics, sparse softmax "
                       "cross-entropy, Momentum 0.01/0.9), float32[8, 3, 64, 64], int32 "
                       "labels"),
    "bert2": ("bert_base.py", "bert2", (), (BERT_BATCH, BERT["seq"]),
              f"BERT-base-shaped encoder, 2 layers (hidden 768, 12 heads, FFN 3072, exact "
              f"GELU, post-norm), inference, int32[{BERT_BATCH}, {BERT['seq']}] token ids "
              f"and padding mask"),
    "bert4": ("bert_base.py", "bert4", (), (BERT_BATCH, BERT["seq"]),
              f"BERT-base-shaped encoder, 4 layers, inference, int32[{BERT_BATCH}, "
              f"{BERT['seq']}] token ids and padding mask"),
    "bert2-train": ("bert_base.py", "bert2_classifier", (), (BERT_BATCH, BERT["seq"]),
                    f"BERT-base-shaped encoder, 2 layers, fine-tuning step (tanh pooler, "
                    f"2-class head, sparse softmax cross-entropy, AdamWeightDecay), "
                    f"int32[{BERT_BATCH}, {BERT['seq']}] token ids and padding mask"),
    "gpt-train": ("gpt_tiny.py", "gpt_small", (), (GPT_BATCH, GPT["seq"]),
                  f"GPT-like stack training step ({GPT['layers']} pre-norm blocks, width "
                  f"{GPT['dim']}, {GPT['heads']} heads, vocabulary {GPT['vocab']}, next-token "
                  f"sparse softmax cross-entropy, Momentum 0.01/0.9), int32[{GPT_BATCH}, "
                  f"{GPT['seq']}] token ids"),
    "vit": ("vit.py", "vit_ti16", (), (VIT_BATCH, VIT["channels"], VIT["image"], VIT["image"]),
            f"ViT-Ti/16-shaped Vision Transformer (patch {VIT['patch']}, width {VIT['dim']}, "
            f"{VIT['heads']} heads, MLP {VIT['mlp']}, {VIT['depth']} pre-norm blocks, exact "
            f"GELU, {VIT['classes']} classes), inference, float32[{VIT_BATCH}, "
            f"{VIT['channels']}, {VIT['image']}, {VIT['image']}]"),
}
SMALL_WORKLOADS = ("lenet", "resblock")  # the python and numba targets, JAX and MindSpore only
DEFAULT_WORKLOADS = (*SMALL_WORKLOADS, "vit")
TRAIN = ("resnet18-train", "bert2-train", "gpt-train")
TRANSFORMERS = ("bert2", "bert4", "bert2-train", "gpt-train")
CASES = {  # case -> (system, label)
    "msc-numba": ("msc", "msc GRAPH_MODE, numba target"),
    "msc-numba-cold": ("msc", "msc GRAPH_MODE, numba target, empty kernel library"),
    "msc-numba-warm": ("msc", "msc GRAPH_MODE, numba target, warm kernel library"),
    "msc-python": ("msc", "msc GRAPH_MODE, python (numpy) target"),
    "jax": ("jax", "JAX `jax.jit` (`lax.conv_general_dilated`)"),
    "mindspore": ("mindspore", "MindSpore 2.10 GRAPH_MODE"),
    "msc-native": ("msc", "msc compile --native, the C library through its ctypes wrapper"),
    "onnxruntime": ("msc", "onnxruntime on msc's ONNX export of the same network"),
    "msc-compile-cold": ("msc", "`python -m msc compile`, empty kernel library"),
    "msc-compile-warm": ("msc", "`python -m msc compile`, warm kernel library"),
}
CLI_CASES = ("msc-compile-cold", "msc-compile-warm")
CLI_WORKLOADS = ("resnet18", "bert2", "bert4")  # whose `msc compile` is timed too
SYSTEMS = ("msc", "jax", "mindspore")
TOL, LOSS_TOL = 1e-4, 1e-3


def cases_of(workload: str) -> tuple[str, ...]:
    if workload in SMALL_WORKLOADS:
        return "msc-numba", "msc-python", "jax", "mindspore"
    cases = ("msc-numba-cold", "msc-numba-warm", "msc-python", "msc-native") + \
        (() if workload in TRAIN else ("onnxruntime",)) + ("jax", "mindspore")
    return cases + (CLI_CASES if workload in CLI_WORKLOADS else ())


def weight(name: str, shape: tuple[int, ...]) -> Any:
    """The same float32 array for a parameter name in every process and system."""
    import numpy as np

    rng = np.random.default_rng(zlib.crc32(name.encode()))
    leaf = name.rsplit(".", 1)[-1]
    if leaf == "weight":  # He-scaled, so activations keep their size through the layers
        w = rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))
    elif leaf in ("gamma", "moving_variance"):
        w = rng.uniform(0.5, 1.5, shape)
    else:  # bias, beta, moving_mean
        w = rng.standard_normal(shape) * 0.1
    return w.astype(np.float32)


def data(workload: str) -> Any:
    import numpy as np

    return np.random.default_rng(0).standard_normal(WORKLOADS[workload][3]).astype(np.float32)


def inputs(workload: str) -> tuple[Any, ...]:
    """The arrays the model takes (a training step's labels follow them)."""
    if workload in ("bert2", "bert4", "bert2-train"):
        return bert_inputs()
    if workload == "gpt-train":
        return gpt_tokens()[:1]
    return (data(workload),)


def labels(workload: str) -> Any:
    """The training step's int32 labels: classes in [0, CLASSES) for the ResNet, in [0, 2)
    for the BERT classifier, the next tokens for the GPT stack."""
    import numpy as np

    if workload == "bert2-train":
        return bert_labels()
    if workload == "gpt-train":
        return gpt_tokens()[1]
    batch = WORKLOADS[workload][3][0]
    return np.random.default_rng(1).integers(0, CLASSES, batch).astype(np.int32)


def input_specs(workload: str) -> list[str]:
    """``msc compile``'s ``--input`` specs of the model's inputs."""
    shape = ",".join(map(str, WORKLOADS[workload][3]))
    if workload in TRANSFORMERS:
        return [f"i32[{shape}]"] * (1 if workload == "gpt-train" else 2)
    return [f"f32[{shape}]"]
