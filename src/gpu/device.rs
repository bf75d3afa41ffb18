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
    /// Opens a device on the best adapter ([`Self::best_adapter`]).
    pub fn new() -> Result<GpuContext, GpuError> {
        GpuContext::on_adapter(GpuContext::best_adapter()?)
    }

    /// The adapter a device is opened on: the first whose name contains `TUMBLE_ADAPTER` if it
    /// is set, else the best ranked (discrete, integrated, virtual, CPU, other; see the `gpu`
    /// module docs). Lists the adapters without opening any.
    pub fn best_adapter() -> Result<wgpu::Adapter, GpuError> {
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
