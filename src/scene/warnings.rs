//! What a valid scene does that its author likely did not mean, said before a command runs it:
//! a scene with no bodies (or none that moves) runs its whole duration without a word, and a
//! `[batch]` without `classify` writes no poses.csv nor poses.svg. Each command prints these on
//! stderr as `warning: …` lines; none stops it.

use super::{Motion, Scene};

impl Scene {
    /// Warnings for any command that runs the scene (`run`, `check`, `bench`, `batch`): no
    /// bodies at all, or none that moves. Each names the file and what a scene needs.
    pub fn warnings(&self) -> Vec<String> {
        let file = self.source.display();
        let (dynamic, _, kinematic) = self.motion_counts();
        if !self.sources.is_empty() {
            // Its sources pour moving bodies in.
            Vec::new()
        } else if self.bodies.is_empty() {
            vec![format!(
                "{file}: the scene has no bodies, so nothing happens in the whole run: a scene \
                 needs a [[bodies]] table, a [[lattices]] generator or a [[sources]] entry (see \
                 docs/scene-format.md)"
            )]
        } else if dynamic + kinematic == 0 {
            vec![format!(
                "{file}: every body of the scene is fixed, so nothing moves in the whole run: a \
                 body moves with motion = \"dynamic\" (the default) and a mass or density"
            )]
        } else {
            Vec::new()
        }
    }

    /// Warnings about the `[batch]` table, for `tumble batch` and `tumble check`: without
    /// `classify`, no resting pose is classified, so trials.csv's pose columns stay empty and
    /// poses.csv and poses.svg are not written.
    pub fn batch_warnings(&self) -> Vec<String> {
        let Some(batch) = &self.batch else {
            return Vec::new();
        };
        if batch.classify.is_some() {
            return Vec::new();
        }
        let example = self
            .bodies
            .iter()
            .find(|b| b.motion == Motion::Dynamic)
            .map_or("NAME".to_string(), |b| b.name.clone());
        vec![format!(
            "{}: [batch] has no classify key, so tumble batch writes no poses.csv nor poses.svg \
             and leaves trials.csv's columns of the classified body (pose, nx, ny, nz, \
             rest_time and its final x, y, z, qw, qx, qy, qz) empty: add classify = \
             \"{example}\" to [batch] to name the dynamic body whose resting pose each trial \
             reports",
            self.source.display()
        )]
    }
}

#[cfg(test)]
mod tests {
    use crate::scene::parse;
    use std::path::Path;

    #[test]
    fn an_empty_scene_and_a_scene_of_fixed_bodies_are_warned_about() {
        let empty = parse("", Path::new("empty.toml")).unwrap();
        let w = empty.warnings();
        println!("{w:?}");
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("empty.toml: the scene has no bodies"),
            "{w:?}"
        );
        assert!(
            w[0].contains("a [[bodies]] table, a [[lattices]] generator or a [[sources]] entry")
        );
        let fixed = "[[bodies]]\nname = \"floor\"\nmotion = \"fixed\"\n\
                     shape = { type = \"box\", half_extents = [1, 1, 1] }\n";
        let w = parse(fixed, Path::new("floor.toml")).unwrap().warnings();
        println!("{w:?}");
        assert!(
            w[0].starts_with("floor.toml: every body of the scene is fixed"),
            "{w:?}"
        );
        let ball = "[[bodies]]\nname = \"ball\"\nmass = 1\n\
                    shape = { type = \"sphere\", radius = 0.1 }\n";
        let scene = parse(ball, Path::new("ball.toml")).unwrap();
        assert!(scene.warnings().is_empty());
        assert!(scene.batch_warnings().is_empty());
        let batch = format!("{ball}[batch]\ntrials = 10\n");
        let w = parse(&batch, Path::new("ball.toml"))
            .unwrap()
            .batch_warnings();
        println!("{w:?}");
        assert!(
            w[0].starts_with(
                "ball.toml: [batch] has no classify key, so tumble batch writes no \
                              poses.csv nor poses.svg"
            ) && w[0].contains("add classify = \"ball\" to [batch]"),
            "{w:?}"
        );
        let classified = format!("{batch}classify = \"ball\"\n");
        let scene = parse(&classified, Path::new("ball.toml")).unwrap();
        assert!(scene.batch_warnings().is_empty());
    }
}
