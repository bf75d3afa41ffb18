//! [`append_pieces`]: a contact step's large arrays (megabytes of rows and patches) appended
//! from many pieces on the pool's threads, each thread into its own part of the destination,
//! in the pieces' order, so the result is the serial append's bit for bit.

use std::mem::MaybeUninit;

/// Appends to `out`, in order, the slice `piece(s)` of every source `s` of `sources`: halves
/// of the sources at a time on the pool's threads, each into its own part of `out`'s new
/// length, down to `leaf` sources (at least one) that one thread copies.
pub(super) fn append_pieces<'a, S: Sync, T: Copy + Send + Sync + 'a>(
    out: &mut Vec<T>,
    sources: &'a [S],
    piece: impl Fn(&'a S) -> &'a [T] + Sync,
    leaf: usize,
) {
    let total: usize = sources.iter().map(|s| piece(s).len()).sum();
    out.reserve(total);
    let len = out.len();
    copy_pieces(
        &mut out.spare_capacity_mut()[..total],
        sources,
        &piece,
        leaf.max(1),
    );
    // SAFETY: `copy_pieces` wrote every one of the `total` elements after `len` (it asserts
    // that the pieces fill `out` exactly), and `T: Copy` has no drop to run.
    unsafe { out.set_len(len + total) };
}

/// Copies the pieces of `sources`, in order, into `out` (exactly their total length).
fn copy_pieces<'a, S: Sync, T: Copy + Send + Sync + 'a>(
    out: &mut [MaybeUninit<T>],
    sources: &'a [S],
    piece: &(impl Fn(&'a S) -> &'a [T] + Sync),
    leaf: usize,
) {
    if sources.len() <= leaf {
        let mut at = 0;
        for s in sources {
            let from = piece(s);
            for (slot, x) in out[at..at + from.len()].iter_mut().zip(from) {
                slot.write(*x);
            }
            at += from.len();
        }
        assert_eq!(at, out.len(), "the pieces must fill their place");
        return;
    }
    let (left, right) = sources.split_at(sources.len() / 2);
    let n: usize = left.iter().map(|s| piece(s).len()).sum();
    let (to_left, to_right) = out.split_at_mut(n);
    rayon::join(
        || copy_pieces(to_left, left, piece, leaf),
        || copy_pieces(to_right, right, piece, leaf),
    );
}

#[cfg(test)]
mod tests {
    use super::append_pieces;

    /// The parallel append is the serial one, on one thread or several, whatever the leaf.
    #[test]
    fn appends_the_pieces_in_order() {
        let sources: Vec<Vec<u64>> = (0..1000u64)
            .map(|k| (0..k % 7).map(|j| k * 10 + j).collect())
            .collect();
        let want: Vec<u64> = [9u64, 8]
            .into_iter()
            .chain(sources.iter().flatten().copied())
            .collect();
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for leaf in [0, 1, 3, 64, 5000] {
                let mut out = vec![9u64, 8];
                pool.install(|| append_pieces(&mut out, &sources, |s| &s[..], leaf));
                assert_eq!(out, want, "{threads} threads, leaf {leaf}");
            }
        }
    }
}
