//! The headless wgpu device the stages run on ([`GpuContext`]: adapter choice as the `gpu` module
//! doc describes), and why one could not be set up ([`GpuError`]).

use super::shader;

/// Failure to set up a device.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter (or none matching `TUMBLE_ADAPTER`).
    #[error("no GPU adapter{}; available: [{}]", .wanted.as_ref().map(|w| format!(" matching \"{w}\"")).unwrap_or_default(), .available.join(", "))]
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
    /// Opens a device on the best adapter (see the `gpu` module docs for the choice and
    /// `TUMBLE_ADAPTER`). Requests the adapter's own limits so large scenes fit.
    pub fn new() -> Result<GpuContext, GpuError> {
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
        let adapter = adapters
            .into_iter()
            .filter(|a| match &wanted {
                Some(w) => a.get_info().name.to_lowercase().contains(&w.to_lowercase()),
                None => true,
            })
            .min_by_key(|a| rank(a.get_info().device_type))
            .ok_or(GpuError::NoAdapter { wanted, available })?;
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
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
}
