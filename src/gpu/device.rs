//! The headless wgpu device the stages run on ([`GpuContext`]: adapter choice as the `gpu` module
//! doc describes), and why one could not be set up ([`GpuError`]).
//!
//! Quiet on headless Linux: Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select` asks a
//! Wayland compositor for the default GPU while the adapters are listed (wgpu enables the
//! Wayland surface extension, which is what makes the layer look), and libwayland prints
//! `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` where no session exists.
//! tumble ranks the adapters itself, so [`GpuContext::best_adapter`] turns the layer off
//! (`NODEVICE_SELECT=1`, which its manifest honours) unless the user set one of its variables.
//! Nothing else is hidden: a driver's real complaints still reach stderr.

use super::shader;

/// What to install when wgpu finds no adapter at all.
pub const INSTALL_HINT: &str = "install a Vulkan driver: on Debian/Ubuntu \
    `sudo apt-get install mesa-vulkan-drivers libvulkan1` (Mesa's drivers, lavapipe among them: \
    a Vulkan device on the CPU), otherwise the GPU vendor's Vulkan driver";

/// Failure to set up a device.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter (or none matching `TUMBLE_ADAPTER`).
    #[error("{}", no_adapter_message(.wanted.as_deref(), .available))]
    NoAdapter {
        /// The `TUMBLE_ADAPTER` filter, if set.
        wanted: Option<String>,
        /// Names of the adapters found.
        available: Vec<String>,
    },
    /// The adapter refused to create a device.
    #[error("request_device failed: {0}")]
    Device(#[from] wgpu::RequestDeviceError),
    /// A shader's import could not be resolved.
    #[error(transparent)]
    Shader(#[from] shader::ShaderError),
}

/// A headless wgpu device and queue.
pub struct GpuContext {
    /// The adapter the device was created on.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Adapter name, backend and type, for reports.
    pub info: wgpu::AdapterInfo,
}

impl GpuContext {
    /// Opens a device on the best adapter ([`Self::best_adapter`]).
    pub fn new() -> Result<GpuContext, GpuError> {
        GpuContext::on_adapter(GpuContext::best_adapter()?)
    }

    /// The adapter a device is opened on: the first whose name contains `TUMBLE_ADAPTER` if it
    /// is set, else the best ranked (discrete, integrated, virtual, CPU, other; see the `gpu`
    /// module docs). Lists the adapters without opening any.
    pub fn best_adapter() -> Result<wgpu::Adapter, GpuError> {
        quiet_device_select_layer();
        let backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = backends;
        let instance = wgpu::Instance::new(desc);
        let adapters = pollster::block_on(instance.enumerate_adapters(backends));
        let wanted = std::env::var("TUMBLE_ADAPTER")
            .ok()
            .filter(|w| !w.is_empty());
        let available: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let rank = |t: wgpu::DeviceType| match t {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        adapters
            .into_iter()
            .filter(|a| match &wanted {
                Some(w) => a.get_info().name.to_lowercase().contains(&w.to_lowercase()),
                None => true,
            })
            .min_by_key(|a| rank(a.get_info().device_type))
            .ok_or(GpuError::NoAdapter { wanted, available })
    }

    /// Opens a device on `adapter`, with the adapter's own limits so that large scenes fit.
    pub fn on_adapter(adapter: wgpu::Adapter) -> Result<GpuContext, GpuError> {
        let info = adapter.get_info();
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("tumble"),
                required_features: wgpu::Features::empty(),
                required_limits: adapter.limits(),
                ..Default::default()
            }))?;
        Ok(GpuContext {
            adapter,
            device,
            queue,
            info,
        })
    }

    /// `"<name> (<backend>, <type>)"`, e.g. `"llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)"`.
    pub fn adapter_name(&self) -> String {
        adapter_name(&self.info)
    }
}

/// [`GpuContext::adapter_name`] for an adapter not (yet) opened.
pub fn adapter_name(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
}

/// The text of [`GpuError::NoAdapter`]: what was looked for, what exists, and what to do.
fn no_adapter_message(wanted: Option<&str>, available: &[String]) -> String {
    match (wanted, available.is_empty()) {
        (None, _) => {
            format!("no GPU adapter (wgpu found no Vulkan, Metal or DX12 device); {INSTALL_HINT}")
        }
        (Some(w), false) => format!(
            "no GPU adapter matching \"{w}\" (TUMBLE_ADAPTER); available: [{}]",
            available.join(", ")
        ),
        (Some(w), true) => format!(
            "no GPU adapter matching \"{w}\" (TUMBLE_ADAPTER): wgpu found no Vulkan, Metal \
             or DX12 device at all; {INSTALL_HINT}"
        ),
    }
}

/// Turns Mesa's device-selection layer off for this process (module docs), once, before the
/// first Vulkan instance; left alone when the user set any of the layer's own variables, as
/// they then want its choice. `NODEVICE_SELECT` is read by the Vulkan loader when an instance
/// is created, so setting it here, before wgpu creates one, is enough.
fn quiet_device_select_layer() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        const LAYER_VARIABLES: [&str; 4] = [
            "NODEVICE_SELECT",
            "MESA_VK_DEVICE_SELECT",
            "MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE",
            "DRI_PRIME",
        ];
        if cfg!(target_os = "linux")
            && LAYER_VARIABLES
                .iter()
                .all(|v| std::env::var_os(v).is_none())
        {
            // Setting the environment races only with reads on other threads; none of tumble's
            // threads reads it while a device is being opened.
            std::env::set_var("NODEVICE_SELECT", "1");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_adapter_says_what_to_install_and_names_the_filter() {
        let none = GpuError::NoAdapter {
            wanted: None,
            available: vec![],
        }
        .to_string();
        eprintln!("{none}");
        assert!(
            none.contains("sudo apt-get install mesa-vulkan-drivers libvulkan1"),
            "{none}"
        );
        assert!(none.contains("Vulkan driver"), "{none}");
        assert_eq!(none.matches("no GPU adapter").count(), 1, "{none}");
        let filtered = GpuError::NoAdapter {
            wanted: Some("radeon".into()),
            available: vec!["llvmpipe (LLVM 15.0.6, 256 bits)".into()],
        }
        .to_string();
        eprintln!("{filtered}");
        assert_eq!(
            filtered,
            "no GPU adapter matching \"radeon\" (TUMBLE_ADAPTER); available: \
             [llvmpipe (LLVM 15.0.6, 256 bits)]"
        );
        let filtered_none = GpuError::NoAdapter {
            wanted: Some("radeon".into()),
            available: vec![],
        }
        .to_string();
        assert!(
            filtered_none.contains("matching \"radeon\" (TUMBLE_ADAPTER)")
                && filtered_none.contains("mesa-vulkan-drivers"),
            "{filtered_none}"
        );
    }
}
