"""Names the front end recognises in CUDA source (builtins, barriers, atomics, annotations)."""

from __future__ import annotations

BARRIER_CALLS = {"__syncthreads", "barrier", "__barrier", "work_group_barrier"}
ATOMICS = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
           "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor",
           "atomic_add", "atomic_inc", "atomic_dec", "atomic_sub", "atomic_xchg",
           "atomic_min", "atomic_max", "atomic_or", "atomic_and", "atomic_xor"}
TEXTURE_FETCHES = {"tex1D", "tex2D", "tex3D", "tex1Dfetch", "tex2DLayered", "tex1DLayered"}
ASSUMPTIONS = {"__requires": "requires", "__assume": "assume"}
#: GPUVerify annotations (their meaning: kpl.fe.annotations); ``__all`` is not one of them
#: here: in CUDA it is the warp vote
ANNOTATIONS = {"__ensures", "__invariant", "__global_invariant", "__assert", "__global_assert",
               "__implies", "__write_implies", "__read_implies", "__write_offset_bytes",
               "__read_offset_bytes", "__same_group", "__same_group_impl", "__no_read",
               "__no_write", "__enabled", "__other_int", "__other_bool", "__uniform_int",
               "__uniform_bool", "__distinct_int", "__distinct_bool", "__at_most_one",
               "__read", "__write", "__assert_decl", "__function_wide_invariant",
               "__candidate_invariant", "__candidate_global_invariant", "__non_temporal",
               "__global_requires", "__return_val_int", "__return_val_bool",
               "__return_val_float", "__return_val_ptr"}
NAMED_BARRIERS = {"__kpl_bar_sync": "sync", "__kpl_bar_arrive": "arrive"}
BUILTIN_DIMS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
VECTOR_FIELDS = ("x", "y", "z", "w")
WARP_SIZE = 32
