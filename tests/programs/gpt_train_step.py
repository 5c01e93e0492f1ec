"""A GPT-style train step, written twice: the layers unrolled by a Python loop and run by lax.scan.

Twelve transformer layers by default (``init(jax.random.key(0), layers=N)`` makes N):
embedding, causal self-attention, an MLP, layer norms, a cross-entropy loss over the next
token, ``jax.value_and_grad`` and a plain SGD update. The scanned form takes the layer
weights stacked along a leading layer axis, the unrolled one a list of layers; sharded FSDP x tensor
parallel over a ``data=4,model=2`` mesh by ``SPECS`` (``P(None, 'data', 'model')`` and its
transpose). Small shapes keep the tests fast; the structure is that of a real step.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

VOCAB, DIM, HEADS, HIDDEN, SEQ, BATCH = 64, 128, 4, 512, 8, 8
LAYERS = 12
LEARNING_RATE = 0.1


def init(key, layers=LAYERS):
    """The parameters: an embedding and ``layers`` stacked transformer blocks."""
    k = jax.random.split(key, 5)

    def normal(key, shape, scale):
        return (scale * jax.random.normal(key, shape)).astype(jnp.float32)

    return {
        "embed": normal(k[0], (VOCAB, DIM), 0.02),
        "layers": {
            "ln1": jnp.ones((layers, DIM), jnp.float32),
            "wqkv": normal(k[1], (layers, DIM, 3 * DIM), DIM ** -0.5),
            "wo": normal(k[2], (layers, DIM, DIM), DIM ** -0.5),
            "ln2": jnp.ones((layers, DIM), jnp.float32),
            "w1": normal(k[3], (layers, DIM, HIDDEN), DIM ** -0.5),
            "w2": normal(k[4], (layers, HIDDEN, DIM), HIDDEN ** -0.5),
        },
    }


def layer_norm(x, scale):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * scale


def block(x, w):
    """One transformer layer: attention and an MLP, each with a residual."""
    b, s, d = x.shape
    h = layer_norm(x, w["ln1"])
    q, k, v = jnp.split(h @ w["wqkv"], 3, axis=-1)
    q, k, v = (t.reshape(b, s, HEADS, d // HEADS) for t in (q, k, v))
    scores = jnp.einsum("bshd,bthd->bhst", q, k) / np.sqrt(d // HEADS)
    causal = jnp.tril(jnp.ones((s, s), bool))
    scores = jnp.where(causal, scores, -1e9)
    attended = jnp.einsum("bhst,bthd->bshd", jax.nn.softmax(scores, axis=-1), v)
    x = x + attended.reshape(b, s, d) @ w["wo"]
    h = layer_norm(x, w["ln2"])
    return x + jax.nn.gelu(h @ w["w1"]) @ w["w2"]


def unstacked(params):
    """The same parameters with ``layers`` a list of one dict per layer (the unrolled form)."""
    layers = params["layers"]
    count = layers["wqkv"].shape[0]
    return {"embed": params["embed"],
            "layers": [{k: v[i] for k, v in layers.items()} for i in range(count)]}


def loss_unrolled(params, tokens):
    x = params["embed"][tokens[:, :-1]]
    for w in params["layers"]:
        x = block(x, w)
    return cross_entropy(x, params["embed"], tokens[:, 1:])


def loss_scanned(params, tokens):
    x = params["embed"][tokens[:, :-1]]
    x, _ = lax.scan(lambda x, w: (block(x, w), None), x, params["layers"])
    return cross_entropy(x, params["embed"], tokens[:, 1:])


def cross_entropy(x, embed, targets):
    logits = x @ embed.T
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(logp, targets[..., None], axis=-1).mean()


def sgd(params, grads):
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


def train_step_unrolled(params, tokens):
    loss, grads = jax.value_and_grad(loss_unrolled)(params, tokens)
    return loss, sgd(params, grads)


def train_step_scanned(params, tokens):
    loss, grads = jax.value_and_grad(loss_scanned)(params, tokens)
    return loss, sgd(params, grads)


params = init(jax.random.key(0))
tokens = np.random.default_rng(0).integers(0, VOCAB, (BATCH, SEQ + 1)).astype(np.int32)

#: FSDP x tensor parallel: every stacked weight split over data on one axis and model on
#: the other; the batch over data.
LAYER_SPECS = {"ln1": P(), "wqkv": P(None, "data", "model"), "wo": P(None, "model", "data"),
               "ln2": P(), "w1": P(None, "data", "model"), "w2": P(None, "model", "data")}


def specs_text(layers=LAYERS, scanned=True):
    """The ``--specs`` of a train step: the scanned form's stacked layers, or a list."""
    if scanned:
        layer = ("{'ln1': P(), 'wqkv': P(None, 'data', 'model'), 'wo': P(None, 'model', "
                 "'data'), 'ln2': P(), 'w1': P(None, 'data', 'model'), "
                 "'w2': P(None, 'model', 'data')}")
        return f"{{'embed': P(None, 'model'), 'layers': {layer}}}, P('data')"
    layer = ("{'ln1': P(), 'wqkv': P('data', 'model'), 'wo': P('model', 'data'), "
             "'ln2': P(), 'w1': P('data', 'model'), 'w2': P('model', 'data')}")
    return f"{{'embed': P(None, 'model'), 'layers': [{', '.join([layer] * layers)}]}}, P('data')"


def args_text(layers=LAYERS, scanned=True):
    """The ``--args`` of a train step with ``layers`` layers."""
    made = f"init(jax.random.key(0), {layers})"
    return f"{made}, tokens" if scanned else f"unstacked({made}), tokens"


MESH_TEXT = "data=4,model=2"
