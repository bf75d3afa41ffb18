//! `--backend auto`: the rule that runs a scene on the device only where the device is expected
//! to be faster ([`auto_choice`]), and the look for a device behind it ([`probe`]).
//!
//! The rule: the GPU when the scene has at least [`AUTO_GPU_MIN_BODIES`] moving (dynamic)
//! bodies and the adapter `--backend gpu` would open is a real GPU (discrete or integrated);
//! the host otherwise.
//!
//! - Why a body count: on an NVIDIA H100 the GPU backend matched the host at 10 000 bodies
//!   (funnel-10k 2 s: 24.4 s against 23.8 s) and never beat it below (funnel 6 s: 54.5 against
//!   54.0 s; on an H200, 43.4 against 39.9 s). Those runs put only the frame stages (swept
//!   boxes, broad phase, pair bounds) on the device, 4–6 % of them; their share grows with the
//!   body count while the event loop's stays with the contacts, so only scenes well above
//!   10 000 bodies are candidates. 50 000 is provisional: no scene that large has been timed on
//!   a device yet, nor the contact step's sweeps there (funnel-100k is the scene to time it
//!   with, issue 47: `benches/device_check.sh`).
//! - Why a real GPU: a CPU implementation (Mesa's lavapipe/llvmpipe, WARP) runs the shaders on
//!   the host's own cores with a round trip per frame on top (funnel-10k 2 s on lavapipe: 36 s
//!   against 16–26 s for the host path); a virtual or unknown adapter is not trusted either.
//! - Below the threshold no device is looked for: asking wgpu costs about 75 ms and makes the
//!   Vulkan drivers may print to stderr on headless machines (Mesa's device-select layer is
//!   turned off, `device.rs`, but other drivers have their own), so small runs cost nothing and
//!   print nothing. At or above it, on Linux, wgpu is asked only when a GPU's device node exists
//!   (`/dev/nvidia<N>`, `/dev/dri/renderD<N>`, WSL's `/dev/dxg`), and with the process's stderr
//!   sent to /dev/null while it lists the adapters (drivers write there directly).

use super::device::{adapter_name, GpuContext};

/// The fewest moving bodies for which `auto` considers the GPU (provisional: see the module
/// docs).
pub const AUTO_GPU_MIN_BODIES: usize = 50_000;

/// What the look for a device found.
#[derive(Clone, Debug, PartialEq)]
pub enum Found {
    /// No device to use, and why (`"no GPU device"`, or wgpu's "no GPU adapter …").
    Nothing(String),
    /// The adapter `--backend gpu` would open.
    Adapter {
        /// Its name, backend and type ([`GpuContext::adapter_name`]).
        name: String,
        /// Its type: only a discrete or integrated GPU qualifies.
        device_type: wgpu::DeviceType,
    },
}

/// What `auto` chose, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoChoice {
    /// Run the frame stages on the GPU (else the host path).
    pub gpu: bool,
    /// Why, as it follows `backend: cpu` or `backend: gpu` in parentheses: e.g. `"auto: 1 005
    /// moving bodies, below the 50 000 the GPU needs"`.
    pub reason: String,
}

/// Whether an adapter of type `t` is a GPU `auto` may pick: discrete or integrated, not a CPU
/// implementation, a virtual or an unknown adapter.
pub fn is_real_gpu(t: wgpu::DeviceType) -> bool {
    matches!(
        t,
        wgpu::DeviceType::DiscreteGpu | wgpu::DeviceType::IntegratedGpu
    )
}

/// The `auto` rule (module docs) for a scene of `moving_bodies` dynamic bodies. `probe` looks
/// for a device; it is called only at or above [`AUTO_GPU_MIN_BODIES`].
pub fn auto_choice(moving_bodies: usize, probe: impl FnOnce() -> Found) -> AutoChoice {
    let bodies = if moving_bodies == 1 {
        String::from("1 moving body")
    } else {
        format!("{} moving bodies", grouped(moving_bodies))
    };
    if moving_bodies < AUTO_GPU_MIN_BODIES {
        return AutoChoice {
            gpu: false,
            reason: format!(
                "auto: {bodies}, below the {} the GPU needs",
                grouped(AUTO_GPU_MIN_BODIES)
            ),
        };
    }
    match probe() {
        Found::Nothing(why) => AutoChoice {
            gpu: false,
            reason: format!("auto: {why}"),
        },
        Found::Adapter { name, device_type } if !is_real_gpu(device_type) => AutoChoice {
            gpu: false,
            reason: format!("auto: {name} is not a GPU"),
        },
        Found::Adapter { name, .. } => AutoChoice {
            gpu: true,
            reason: format!("auto: {bodies} ≥ {}; {name}", grouped(AUTO_GPU_MIN_BODIES)),
        },
    }
}

/// Looks for the adapter `--backend gpu` would open (honouring `TUMBLE_ADAPTER`) without opening
/// it, quietly (module docs): the adapter, if any, and what was found.
pub fn probe() -> (Option<wgpu::Adapter>, Found) {
    if !gpu_device_node(std::path::Path::new("/dev")) {
        return (None, Found::Nothing("no GPU device".to_string()));
    }
    match with_stderr_silenced(GpuContext::best_adapter) {
        Ok(adapter) => {
            let info = adapter.get_info();
            let found = Found::Adapter {
                name: adapter_name(&info),
                device_type: info.device_type,
            };
            (Some(adapter), found)
        }
        Err(e) => (None, Found::Nothing(e.to_string())),
    }
}

/// Whether the device folder `dev` holds a GPU's node: an NVIDIA device (`nvidia0`, …), a DRM
/// render node (`dri/renderD128`, …: AMD, Intel, and also virtual GPUs, which the adapter's type
/// then rules out) or WSL's `dxg`. Only Linux is looked at; elsewhere wgpu is asked.
fn gpu_device_node(dev: &std::path::Path) -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let names = |dir: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(dir).map_or_else(
            |_| Vec::new(),
            |entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            },
        )
    };
    let numbered = |name: &str, prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    names(dev)
        .iter()
        .any(|n| numbered(n, "nvidia") || n == "dxg")
        || names(&dev.join("dri"))
            .iter()
            .any(|n| numbered(n, "renderD"))
}

/// Runs `f` with the process's stderr (descriptor 2) on /dev/null, and puts it back after, also
/// if `f` panics. Drivers write there directly, past Rust's `eprintln!`; nothing else of this
/// process writes while a command selects its backend. Where stderr cannot be moved, `f` runs
/// as it is.
#[cfg(unix)]
fn with_stderr_silenced<R>(f: impl FnOnce() -> R) -> R {
    match std::fs::OpenOptions::new().write(true).open("/dev/null") {
        Ok(null) => with_stderr_on(&null, f),
        Err(_) => f(),
    }
}

/// Runs `f` with descriptor 2 on `target` and puts it back after, also if `f` panics; where it
/// cannot be moved, `f` runs as it is.
#[cfg(unix)]
fn with_stderr_on<R>(target: &std::fs::File, f: impl FnOnce() -> R) -> R {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    // SAFETY: dup only reads the descriptor table; a valid result is a descriptor we own.
    let saved = unsafe { libc::dup(libc::STDERR_FILENO) };
    if saved < 0 {
        return f();
    }
    // SAFETY: `saved` was just returned by dup and nothing else owns it.
    let saved = unsafe { OwnedFd::from_raw_fd(saved) };
    /// Puts the saved stderr back when dropped.
    struct Restore(OwnedFd);
    impl Drop for Restore {
        fn drop(&mut self) {
            // SAFETY: both descriptors are open; dup2 replaces descriptor 2 atomically.
            unsafe { libc::dup2(self.0.as_raw_fd(), libc::STDERR_FILENO) };
        }
    }
    // SAFETY: as above; on failure descriptor 2 is left as it was.
    if unsafe { libc::dup2(target.as_raw_fd(), libc::STDERR_FILENO) } < 0 {
        return f();
    }
    let _restore = Restore(saved);
    f()
}

/// Elsewhere stderr is left alone (no loader there prints on a headless listing).
#[cfg(not(unix))]
fn with_stderr_silenced<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `n` with its digits in groups of three: `1 005`, `50 000`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu::DeviceType;

    fn adapter(device_type: DeviceType) -> Found {
        Found::Adapter {
            name: format!("Some adapter (Vulkan, {device_type:?})"),
            device_type,
        }
    }

    #[test]
    fn below_the_threshold_the_cpu_and_no_probe() {
        for n in [0, 1, 1_005, AUTO_GPU_MIN_BODIES - 1] {
            let choice = auto_choice(n, || panic!("probed with {n} bodies"));
            assert!(!choice.gpu);
            let bodies = if n == 1 { "body" } else { "bodies" };
            assert_eq!(
                choice.reason,
                format!(
                    "auto: {} moving {bodies}, below the 50 000 the GPU needs",
                    grouped(n)
                )
            );
        }
        assert_eq!(
            auto_choice(1_005, || unreachable!()).reason,
            "auto: 1 005 moving bodies, below the 50 000 the GPU needs"
        );
    }

    #[test]
    fn at_the_threshold_a_real_gpu_is_picked() {
        for t in [DeviceType::DiscreteGpu, DeviceType::IntegratedGpu] {
            let choice = auto_choice(AUTO_GPU_MIN_BODIES, || adapter(t));
            assert!(choice.gpu, "{t:?}");
            assert_eq!(
                choice.reason,
                format!("auto: 50 000 moving bodies ≥ 50 000; Some adapter (Vulkan, {t:?})")
            );
        }
        let choice = auto_choice(100_000, || adapter(DeviceType::DiscreteGpu));
        assert!(choice.gpu);
        assert_eq!(
            choice.reason,
            "auto: 100 000 moving bodies ≥ 50 000; Some adapter (Vulkan, DiscreteGpu)"
        );
    }

    #[test]
    fn a_cpu_virtual_or_unknown_adapter_never_qualifies() {
        for t in [DeviceType::Cpu, DeviceType::VirtualGpu, DeviceType::Other] {
            let choice = auto_choice(usize::MAX, || adapter(t));
            assert!(!choice.gpu, "{t:?}");
            assert_eq!(
                choice.reason,
                format!("auto: Some adapter (Vulkan, {t:?}) is not a GPU")
            );
        }
    }

    #[test]
    fn without_a_device_the_cpu() {
        let choice = auto_choice(AUTO_GPU_MIN_BODIES, || {
            Found::Nothing("no GPU device".to_string())
        });
        assert_eq!(
            choice,
            AutoChoice {
                gpu: false,
                reason: "auto: no GPU device".to_string()
            }
        );
    }

    #[test]
    fn digits_are_grouped_by_three() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1 000");
        assert_eq!(grouped(100_000), "100 000");
        assert_eq!(grouped(1_234_567), "1 234 567");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn device_nodes_are_recognised() {
        let dev = std::env::temp_dir().join(format!("tumble-auto-dev-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dev);
        std::fs::create_dir_all(dev.join("dri")).unwrap();
        let touch = |name: &str| std::fs::write(dev.join(name), b"").unwrap();
        // A machine without a GPU: no nodes, or only the ones that are not a GPU.
        touch("null");
        touch("nvidiactl");
        touch("nvidia-uvm");
        touch("dri/card0");
        touch("dri/renderD");
        assert!(!gpu_device_node(&dev));
        assert!(!gpu_device_node(&dev.join("absent")));
        for node in ["nvidia0", "dri/renderD128", "dxg"] {
            touch(node);
            assert!(gpu_device_node(&dev), "{node}");
            std::fs::remove_file(dev.join(node)).unwrap();
        }
        std::fs::remove_dir_all(&dev).unwrap();
    }

    /// Descriptor 2 on a file for the time of `f`, and what was written to it; one test at a
    /// time (the tests run on threads of one process).
    #[cfg(unix)]
    fn stderr_of(f: impl FnOnce()) -> String {
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let path = std::env::temp_dir().join(format!("tumble-auto-stderr-{}", std::process::id()));
        let file = std::fs::File::create(&path).unwrap();
        with_stderr_on(&file, f);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        text
    }

    #[cfg(unix)]
    #[test]
    fn silenced_stderr_is_silent_and_put_back() {
        use std::io::Write;
        let text = stderr_of(|| {
            let hidden = with_stderr_silenced(|| {
                std::io::stderr().write_all(b"hidden\n").unwrap();
                7
            });
            assert_eq!(hidden, 7);
            std::io::stderr().write_all(b"shown\n").unwrap();
        });
        assert_eq!(text, "shown\n");
    }

    /// The listing behind `auto` writes nothing to stderr, even where the Vulkan drivers complain
    /// (lavapipe without `XDG_RUNTIME_DIR`, as in CI).
    #[cfg(unix)]
    #[test]
    fn listing_the_adapters_quietly_prints_nothing() {
        let mut found = None;
        let text = stderr_of(|| {
            found = Some(with_stderr_silenced(GpuContext::best_adapter).is_ok());
        });
        assert_eq!(text, "", "adapter found: {found:?}");
    }
}
