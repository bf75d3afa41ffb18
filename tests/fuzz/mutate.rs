//! The seeded mutator: a bundled scene's text with one or two mutations of the classes a hostile
//! user reaches for (numbers to 0, −1, ±1e300, NaN, ∞ and huge counts; strings, keys, lines,
//! arrays and value types; unicode; truncation; mesh paths to directories, devices, FIFOs, huge,
//! garbage and broken files). A case is a function of its seed alone, so a failure is replayed
//! from the seed the test prints.

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A bundled scene, its mesh paths made absolute so that a mutant can live anywhere.
pub struct Base {
    /// The scene file, relative to the crate (for messages).
    pub name: String,
    pub text: String,
    /// The mesh files it names (absolute).
    pub meshes: Vec<PathBuf>,
}

/// Most bodies a bundled lattice keeps in the mutants: funnel-10k's. A valid mutant of a larger
/// one (funnel-100k's 100 000 cubes) would take about 5 s to check and run instead of 0.3 s, and
/// minutes more over the CI test's cases, while what a mutant reaches (the reader, the bounds, a
/// run's first frames) is the same with fewer cubes.
const MAX_LATTICE_BODIES: u64 = 10_000;

/// Every `*.toml` under `scenes/`, in a fixed order, their lattices cut to
/// [`MAX_LATTICE_BODIES`] ([`cut_large_lattices`]).
pub fn bundled_scenes() -> Vec<Base> {
    let mut paths = Vec::new();
    let mut dirs = vec![PathBuf::from("scenes")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("scenes/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "toml") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a bundled scene is readable");
            let dir = std::fs::canonicalize(path.parent().unwrap()).unwrap();
            let mut meshes = Vec::new();
            let text = absolute_mesh_paths(&cut_large_lattices(&text), &dir, &mut meshes);
            Base {
                name: path.display().to_string(),
                text,
                meshes,
            }
        })
        .collect()
}

/// Each `count = [a, b, c]` line of more than [`MAX_LATTICE_BODIES`] bodies with its layers `c`
/// cut so that it has at most that many (at least one layer): the lattice keeps its footprint.
/// Other scenes' texts are returned unchanged, byte for byte.
fn cut_large_lattices(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let count = line
            .strip_prefix("count = [")
            .and_then(|rest| rest.split(']').next())
            .map(|inner| inner.split(',').map(|n| n.trim().parse::<u64>()));
        let cut = match count.map(|n| n.collect::<Result<Vec<u64>, _>>()) {
            Some(Ok(n)) if n.len() == 3 && n.iter().product::<u64>() > MAX_LATTICE_BODIES => {
                let layers = (MAX_LATTICE_BODIES / (n[0] * n[1]).max(1)).max(1);
                Some(format!("count = [{}, {}, {layers}]", n[0], n[1]))
            }
            _ => None,
        };
        match cut {
            Some(cut) => {
                out.push_str(&cut);
                out.push('\n');
            }
            None => out.push_str(line),
        }
    }
    out
}

/// `file = "x"` values made absolute against `dir`; the files are pushed to `meshes`.
fn absolute_mesh_paths(text: &str, dir: &Path, meshes: &mut Vec<PathBuf>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("file = \"") {
        let start = at + "file = \"".len();
        let end = start + rest[start..].find('"').unwrap();
        let file = dir.join(&rest[start..end]);
        out.push_str(&rest[..start]);
        out.push_str(&file.display().to_string());
        meshes.push(file);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Files the mesh mutations point at, made once per run in `dir`.
pub struct SpecialFiles {
    pub dir: PathBuf,
    /// A directory named like a mesh.
    pub folder: PathBuf,
    /// A link to `/dev/zero` named like a mesh.
    pub zero: PathBuf,
    /// A FIFO named like a mesh (absent where `mkfifo` is not available).
    pub fifo: Option<PathBuf>,
    /// A sparse file of 300 MiB named like a mesh.
    pub huge: PathBuf,
}

impl SpecialFiles {
    pub fn make(dir: &Path) -> SpecialFiles {
        std::fs::create_dir_all(dir).unwrap();
        let folder = dir.join("folder.stl");
        std::fs::create_dir_all(&folder).unwrap();
        let zero = dir.join("zero.stl");
        let _ = std::fs::remove_file(&zero);
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let fifo = dir.join("fifo.obj");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        let huge = dir.join("huge.stl");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(300 << 20)
            .unwrap();
        SpecialFiles {
            dir: dir.to_path_buf(),
            folder,
            zero,
            fifo: made.then_some(fifo),
            huge,
        }
    }
}

/// The mutation classes, for the counts the campaign prints.
pub const CLASSES: [&str; 10] = [
    "number", "string", "key", "line", "array", "type", "unicode", "truncate", "mesh", "count",
];

/// A mutant: its text, the class of its (first) mutation, and a mesh file it wrote, if any.
pub struct Mutant {
    pub text: String,
    pub class: &'static str,
}

/// Token spans found in a scene's text, outside comments.
#[derive(Default)]
struct Tokens {
    numbers: Vec<Range<usize>>,
    strings: Vec<Range<usize>>,
    keys: Vec<Range<usize>>,
    arrays: Vec<Range<usize>>,
}

/// A light TOML scanner: enough to find numbers, strings, keys and value arrays (not exact; the
/// mutants need not be valid TOML).
fn scan(text: &str) -> Tokens {
    let b = text.as_bytes();
    let mut t = Tokens::default();
    let mut i = 0;
    let mut line_start = true;
    let mut open: Vec<usize> = Vec::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                t.strings.push(start..i);
                line_start = false;
                continue;
            }
            b'[' if !line_start => open.push(i),
            b']' => {
                if let Some(s) = open.pop() {
                    t.arrays.push(s..i + 1);
                }
            }
            b'0'..=b'9' | b'-' | b'+' => {
                let prev = if i == 0 { b' ' } else { b[i - 1] };
                if b" =[,{\t".contains(&prev) {
                    let start = i;
                    i += 1;
                    while i < b.len() && (b[i].is_ascii_alphanumeric() || b"._+-".contains(&b[i])) {
                        i += 1;
                    }
                    t.numbers.push(start..i);
                    line_start = false;
                    continue;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let mut j = i;
                while j < b.len() && b[j] == b' ' {
                    j += 1;
                }
                if j < b.len() && b[j] == b'=' {
                    t.keys.push(start..i);
                }
                line_start = false;
                continue;
            }
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            _ => {}
        }
        if c != b'[' || !line_start {
            line_start = false;
        }
        i += 1;
    }
    t
}

const NUMBERS: [&str; 20] = [
    "0",
    "-1",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "-inf",
    "5e-324",
    "1e-300",
    "1e20",
    "-0.0",
    "1000000000",
    "9223372036854775807",
    "99999999999999999999",
    "0x7fffffff",
    "1e-18",
    "1e6",
    "1e-6",
    "1e3",
    "1e-3",
];

const UNICODE: [&str; 10] = [
    "é", "😀", "\u{202e}", "\u{feff}", "\u{0301}", "\u{0}", "\u{7f}", "\u{ffff}", "中文",
    "\u{2028}",
];

/// The mutant of `base` drawn from `seed`, with any mesh file it needs written under `files.dir`.
pub fn mutant(base: &Base, seed: u64, files: &SpecialFiles) -> Mutant {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut text = base.text.clone();
    let class = CLASSES[rng.random_range(0..CLASSES.len())];
    mutate(&mut text, class, base, seed, files, &mut rng);
    // One case in five stacks a second mutation.
    if rng.random_bool(0.2) {
        let second = CLASSES[rng.random_range(0..CLASSES.len())];
        mutate(&mut text, second, base, seed, files, &mut rng);
    }
    Mutant { text, class }
}

fn mutate(
    text: &mut String,
    class: &str,
    base: &Base,
    seed: u64,
    files: &SpecialFiles,
    rng: &mut ChaCha8Rng,
) {
    let tokens = scan(text);
    let replace = |text: &mut String, span: &Range<usize>, with: &str| {
        text.replace_range(span.clone(), with);
    };
    match class {
        "number" => {
            if let Some(span) = tokens.numbers.choose(rng) {
                let with = *NUMBERS.choose(rng).unwrap();
                replace(text, span, with);
            }
        }
        "string" => {
            if let Some(span) = tokens.strings.choose(rng) {
                let long = format!("\"{}\"", "x".repeat(100_000));
                let with = match rng.random_range(0..6) {
                    0 => "\"\"".to_string(),
                    1 => long,
                    2 => "\"üñîçødé 😀 \\u0000\"".to_string(),
                    3 => "\"box\"".to_string(),
                    4 => "\"a\\nb\"".to_string(),
                    _ => "'single'".to_string(),
                };
                replace(text, span, &with);
            }
        }
        "key" => {
            if let Some(span) = tokens.keys.choose(rng) {
                let key = text[span.clone()].to_string();
                let with = match rng.random_range(0..3) {
                    0 => format!("{key}x"),
                    1 => "mass".to_string(),
                    _ => format!("{key}.{key}"),
                };
                replace(text, span, &with);
            }
        }
        "line" => {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            if lines.is_empty() {
                return;
            }
            let k = rng.random_range(0..lines.len());
            match rng.random_range(0..4) {
                0 => {
                    lines.remove(k);
                }
                1 => {
                    let line = lines[k].clone();
                    lines.insert(k, line);
                }
                2 => {
                    let j = rng.random_range(0..lines.len());
                    lines.swap(k, j);
                }
                _ => lines.insert(k, "= = [[ {".to_string()),
            }
            *text = lines.join("\n");
        }
        "array" => {
            if let Some(span) = tokens.arrays.choose(rng) {
                let inner = text[span.start + 1..span.end - 1].to_string();
                let with = match rng.random_range(0..4) {
                    0 => "[]".to_string(),
                    1 => format!("[{inner}, 1e300]"),
                    2 => format!("[[{inner}]]"),
                    _ => match inner.rfind(',') {
                        Some(c) => format!("[{}]", &inner[..c]),
                        None => "[]".to_string(),
                    },
                };
                replace(text, span, &with);
            }
        }
        "type" => {
            let all: Vec<&Range<usize>> = tokens
                .numbers
                .iter()
                .chain(&tokens.strings)
                .chain(&tokens.arrays)
                .collect();
            if let Some(span) = all.choose(rng) {
                let with = ["\"1\"", "1", "true", "{}", "[1, 2]", "1979-05-27"]
                    .choose(rng)
                    .unwrap();
                replace(text, span, with);
            }
        }
        "unicode" => {
            if text.is_empty() {
                return;
            }
            let mut at = rng.random_range(0..text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, UNICODE.choose(rng).unwrap());
        }
        "truncate" => {
            if text.is_empty() {
                return;
            }
            let mut at = rng.random_range(0..text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.truncate(at);
        }
        "mesh" => mutate_mesh(text, base, seed, files, rng),
        "count" => {
            // A lattice's count (or the batch's trials) made huge, else any number.
            let at = text.find("count = [").or_else(|| text.find("trials = "));
            match at {
                Some(at) => {
                    let end = at + text[at..].find('\n').unwrap_or(text.len() - at);
                    let with = if text[at..].starts_with("count") {
                        ["count = [100000, 100000, 1000]", "count = [4000, 4000, 1]"]
                            .choose(rng)
                            .unwrap()
                            .to_string()
                    } else {
                        "trials = 1000000000000".to_string()
                    };
                    text.replace_range(at..end, &with);
                }
                None => mutate(text, "number", base, seed, files, rng),
            }
        }
        _ => unreachable!("unknown class {class}"),
    }
}

/// A mesh path made to point at a special file, a garbage file, a truncated or a number-mutated
/// copy of the scene's own mesh, or nothing; scenes without meshes get a number mutation.
fn mutate_mesh(
    text: &mut String,
    base: &Base,
    seed: u64,
    files: &SpecialFiles,
    rng: &mut ChaCha8Rng,
) {
    let Some(original) = base.meshes.choose(rng) else {
        return mutate(text, "number", base, seed, files, rng);
    };
    let ext = original.extension().unwrap().to_string_lossy().to_string();
    let written = files.dir.join(format!("case-{seed}.{ext}"));
    let target: PathBuf = match rng.random_range(0..8) {
        0 => files.folder.clone(),
        1 => files.zero.clone(),
        2 => files.fifo.clone().unwrap_or_else(|| files.zero.clone()),
        3 => files.huge.clone(),
        4 => {
            let bytes: Vec<u8> = (0..rng.random_range(0..4096))
                .map(|_| rng.random())
                .collect();
            std::fs::write(&written, bytes).unwrap();
            written
        }
        5 => {
            let bytes = std::fs::read(original).unwrap();
            let cut = rng.random_range(0..bytes.len().max(1));
            std::fs::write(&written, &bytes[..cut]).unwrap();
            written
        }
        6 => {
            // A number of an OBJ or ASCII STL mutated (a binary file gets garbage bytes).
            let bytes = std::fs::read(original).unwrap();
            match String::from_utf8(bytes) {
                Ok(mut mesh) => {
                    let tokens = scan(&mesh);
                    if let Some(span) = tokens.numbers.choose(rng) {
                        mesh.replace_range(span.clone(), NUMBERS.choose(rng).unwrap());
                    }
                    std::fs::write(&written, mesh).unwrap();
                }
                Err(e) => {
                    let mut bytes = e.into_bytes();
                    for _ in 0..8 {
                        let k = rng.random_range(0..bytes.len());
                        bytes[k] = rng.random();
                    }
                    std::fs::write(&written, bytes).unwrap();
                }
            }
            written
        }
        _ => files.dir.join("no-such-mesh.stl"),
    };
    *text = text.replace(
        &original.display().to_string(),
        &target.display().to_string(),
    );
}
