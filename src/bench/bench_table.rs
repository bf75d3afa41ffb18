//! A scene file for benchmarking: the scene and the bench's own settings from its `[bench]`
//! table ([`BenchScene`], read by [`load`] and [`parse`]; see the `bench` module doc for how the
//! table is kept from the scene parser).

use crate::scene::{self, Scene, SceneError};
use std::path::Path;

/// A scene and the bench's own settings from its `[bench]` table.
#[derive(Clone, Debug)]
pub struct BenchScene {
    /// The scene, as [`scene::parse`] reads it.
    pub scene: Scene,
    /// `[bench] outlet_z`: bodies whose centre ends below this height (m) went through the outlet.
    pub outlet_z: Option<f64>,
}

/// Reads a scene file for benchmarking (see [`parse`]).
pub fn load(path: &Path) -> Result<BenchScene, SceneError> {
    parse(&scene::read_text(path)?, path)
}

/// Parses scene text with an optional `[bench]` table (`outlet_z = <number>`); `source` names it
/// in errors.
pub fn parse(text: &str, source: &Path) -> Result<BenchScene, SceneError> {
    let error = |message: String| SceneError {
        message: format!("{}: [bench]: {message}", source.display()),
    };
    // A document that is not valid TOML goes straight to the scene parser, whose message locates
    // the syntax error.
    let mut doc = match text.parse::<toml::Table>() {
        Ok(doc) => doc,
        Err(_) => {
            return scene::parse(text, source).map(|scene| BenchScene {
                scene,
                outlet_z: None,
            })
        }
    };
    let Some(bench) = doc.remove("bench") else {
        return Ok(BenchScene {
            scene: scene::parse(text, source)?,
            outlet_z: None,
        });
    };
    let toml::Value::Table(bench) = bench else {
        return Err(error("must be a table".to_string()));
    };
    let mut outlet_z = None;
    for (key, value) in &bench {
        match key.as_str() {
            "outlet_z" => {
                let z = match value {
                    toml::Value::Float(z) => *z,
                    toml::Value::Integer(z) => *z as f64,
                    other => {
                        return Err(error(format!(
                            "outlet_z must be a number (got {})",
                            other.type_str()
                        )))
                    }
                };
                if !z.is_finite() {
                    return Err(error(format!("outlet_z must be finite (got {z})")));
                }
                outlet_z = Some(z);
            }
            other => {
                return Err(error(format!(
                    "unknown key \"{other}\" (expected: outlet_z)"
                )))
            }
        }
    }
    // The scene parser accepts (and ignores) `[bench]`, so errors keep the file's own lines.
    Ok(BenchScene {
        scene: scene::parse(text, source)?,
        outlet_z,
    })
}
