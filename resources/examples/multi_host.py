"""Multi-host scaling: several processes, one global mesh, one psum across them all

On a cluster every host runs the same Python program; `jax.distributed.initialize`
connects them, and `jax.devices()` then lists the devices of every host while
`jax.local_devices()` lists only this host's. Arrays are built from each host's
own slice of the data (`jax.make_array_from_process_local_data`), and a
collective such as `psum` crosses host boundaries. `jaxviz multihost` plays
this on one machine: two processes with four simulated CPU devices each act
as two hosts (the lecture notes mention mpi4jax; JAX now does this itself).
"""
import jax
import jax.numpy as jnp
from jax import lax


def normalize_across_hosts(x):
    return x / lax.psum(x, axis_name='hosts')


JAXVIZ = {
    "topic": "multi-host",
    "function": "normalize_across_hosts",
    "args": "f32[]",
    "batched_args": "jnp.arange(8.)",
    "variants": ["vmap", "pmap", "shard_map"],
    "axis_name": "hosts",
    "processes": 2,
    "order": 10,
}
