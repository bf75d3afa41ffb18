//! CPU twins of the GPU stages (STUB: the GPU helper implements this module).
