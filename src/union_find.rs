//! Union–find over body indices, the one used to count a step's islands and group them for
//! threads (`world::islands`) and to gather bodies into articulations ([`crate::joints`]).

/// Disjoint sets of `0..n`, each represented by its smallest member once [`UnionFind::flatten`]
/// has run (unions always hang the larger root under the smaller).
#[derive(Clone, Debug, Default)]
pub(crate) struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// `n` singletons (the buffer is reused).
    pub(crate) fn reset(&mut self, n: usize) {
        self.parent.clear();
        self.parent.extend(0..n as u32);
    }

    /// The root of `i`'s set, halving the path on the way.
    pub(crate) fn find(&mut self, mut i: u32) -> u32 {
        let parent = &mut self.parent;
        while parent[i as usize] != i {
            let up = parent[parent[i as usize] as usize];
            parent[i as usize] = up;
            i = up;
        }
        i
    }

    /// Joins the sets of `a` and `b`.
    pub(crate) fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }

    /// Points every member straight at its root, so [`UnionFind::root`] can read it.
    pub(crate) fn flatten(&mut self) {
        for i in 0..self.parent.len() as u32 {
            let r = self.find(i);
            self.parent[i as usize] = r;
        }
    }

    /// The root of `i` after [`UnionFind::flatten`] (no unions since).
    pub(crate) fn root(&self, i: usize) -> u32 {
        self.parent[i]
    }
}

#[cfg(test)]
mod tests {
    use super::UnionFind;

    #[test]
    fn sets_join_under_their_smallest_member() {
        let mut sets = UnionFind::default();
        sets.reset(6);
        sets.union(4, 2);
        sets.union(5, 4);
        sets.union(1, 3);
        sets.flatten();
        let roots: Vec<u32> = (0..6).map(|i| sets.root(i)).collect();
        assert_eq!(roots, [0, 1, 2, 1, 2, 2]);
    }
}
