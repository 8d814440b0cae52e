// SPDX-License-Identifier: GPL-2.0-or-later
//! The command line of one core's QEMU.
//!
//! Every SCC core is one `qemu-system-i386` process: a P54C (`-cpu
//! pentium`) on a PC board with no default devices and no 8254 interval
//! timer (`pit=off`), booting the kernel ELF
//! through multiboot with `qboot`, its serial port on standard output, and
//! an exit port so the guest can end the process with a status. The chip's
//! shared regions arrive as `ivshmem-plain` PCI devices backed by parts of
//! the run's files ([`crate::chipmem`]); the kernel finds them on the bus
//! and moves their BARs to the chip's addresses.
//!
//! Two modes ([`Mode`]):
//! - modelled: the plugin is loaded with the model's options
//!   ([`PluginOptions::to_args`]); cacheable regions (LSM, MPBs) show the core's own view file,
//!   which the plugin keeps as non-coherent as silicon; registers (CRBs,
//!   FPGA bank) show the chip memory itself; private RAM is a file too, so
//!   the plugin can walk the guest's page tables;
//! - plain: no plugin, every region shows the chip memory: coherent shared
//!   memory, the baseline the plugin's overhead is measured against.
//!
//! An SCC core has no 8254: its only timer is the P54C's local APIC, the
//! one the kernel uses. A PC board's 8254 counts from reset in its
//! square-wave mode, and QEMU's main loop wakes at each of its output's
//! edges, 36 times a second, to raise an interrupt the kernel does not
//! use: on 48 cores, a host wake-up every 0.6 ms of a run, taking host
//! time from the cores.
//!
//! `-smp 1,maxcpus=2` is not a mistake: with a single possible vCPU, TCG
//! translates `lock`ed instructions without atomicity, and two instances
//! then lose updates to shared memory. Allowing a second vCPU (never
//! started) keeps them atomic across processes.
//!
//! The kernel is told the number of cores and the program, never its own
//! core id: it reads that from MYTILEID, as on silicon.
//!
//! QEMU runs in the run's directory (the chip memory's), where the image is
//! copied as [`IMAGE`] ([`copy_image`]): multiboot hands the kernel
//! the image's path as the start of its command line, which the kernel
//! reads (in modelled time, as everything from the entry point on). With
//! the image's own path there, a program's modelled cycles would depend on
//! where the project was checked out and where the run's directory is.
//! A copy, not a link: a rebuild while the run goes on changes neither the
//! image its cores boot nor the one its report reads symbols from.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use chip::args::BootArgs;
use chip::{Chip, CoreId, Mode, PluginOptions};

use crate::chipmem::{self, Layout};

/// The name under which the image is linked in the run's directory, and
/// the path (relative to that directory, QEMU's working directory) every
/// core's QEMU boots.
pub const IMAGE: &str = "image";

/// Copies `image` (an app on the kernel library) into the run's directory
/// `dir` as [`IMAGE`], where the arguments ([`Launch::args`]) name it, and
/// returns the copy's path: the image the run boots and reads symbols
/// from. A directory gets its image once.
pub fn copy_image(image: &Path, dir: &Path) -> std::io::Result<std::path::PathBuf> {
    let copy = dir.join(IMAGE);
    let mut to = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(&copy)?;
    std::io::copy(&mut std::fs::File::open(image)?, &mut to)?;
    Ok(copy)
}

/// The command line a core's kernel reads from QEMU's multiboot loader
/// for `boot`: the image's path, a space, then `-append`'s text.
pub fn kernel_command_line(boot: &BootArgs) -> String {
    format!("{IMAGE} {}", boot.to_args())
}

/// Guest RAM of each core when none is asked for, in MiB. It is also the
/// least a run may ask for: the kernel's heap is half of it, and the
/// largest stack (`chip::args::MAX_STACK_KIB`) is sized to fit beside.
pub const DEFAULT_MEMORY_MIB: u32 = 32;

/// The most guest RAM a core may have, in MiB. The SCC's private LUT
/// entries 0-40 reach 656 MiB (`chip::AddressMap::SCC`), and every core's
/// RAM is a file of its full size in the run's directory (touched only
/// where the guest writes), so a run of 48 cores asks for 24 GiB of room
/// at this size.
pub const MAX_MEMORY_MIB: u32 = 512;

/// The exit protocol the guest follows, defined with the shared regions.
pub use chip::{ARGS_START, EXIT_PORT, GUEST_ENDS_RUN, GUEST_FAILURE, GUEST_SUCCESS};

/// QEMU's exit status after the guest wrote `value` to [`EXIT_PORT`]:
/// `isa-debug-exit` exits with `(value << 1) | 1`, so a status of 0 can
/// never mean that the guest reported anything.
pub const fn exit_status(value: u8) -> i32 {
    ((value as i32) << 1) | 1
}

/// QEMU's exit status when the chip model stopped the core because it
/// cannot let it go on (an access through a LUT entry that reaches
/// nothing, for one); the plugin prints the reason on standard error as
/// `emu: core N: <reason>`. QEMU's own errors exit with 1.
pub const MODEL_STOP_STATUS: i32 = 3;

/// PCI slot of the first shared-memory device; slots 0 and 1 hold the
/// host bridge and the ISA bridge of the `pc` board.
const FIRST_SLOT: usize = 2;

/// Functions per PCI slot.
const FUNCTIONS: usize = 8;

/// What is the same for every core of a run.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// The chip being emulated, one of [`chip::CHIPS`].
    pub chip: &'static Chip,
    /// What every core's kernel is told: how many cores run (cores
    /// `0..cores`), the program and its settings.
    pub boot: &'a BootArgs<'a>,
    /// The image's entry point: each core's modelled time starts there
    /// ([`PluginOptions::entry`]), not at reset, so that the firmware's
    /// host-timed loops before it move no clock.
    pub entry: u32,
    /// The plugin shared object.
    pub plugin: &'a Path,
    /// The firmware (`qboot.rom`).
    pub bios: &'a Path,
    /// The chip memory file.
    pub mem: &'a Path,
    /// Guest RAM per core, in MiB.
    pub memory_mib: u32,
    /// With or without the chip model, and what it does.
    pub mode: Mode,
    /// A core that starts paused, with QEMU's gdb stub listening on this
    /// unix socket for a debugger to attach and continue it.
    pub gdb: Option<(CoreId, &'a Path)>,
}

impl Launch<'_> {
    /// The run's directory, which holds the chip memory: every core's QEMU
    /// runs there.
    pub fn dir(&self) -> &Path {
        self.mem.parent().unwrap_or(Path::new("."))
    }

    /// The arguments (without the program name) of `core`'s QEMU, which
    /// runs in the run's directory ([`Launch::dir`]).
    pub fn args(&self, core: CoreId) -> Vec<OsString> {
        let mut args: Vec<OsString> = [
            "-M",
            "pc,pit=off",
            "-nodefaults",
            "-cpu",
            "pentium",
            "-smp",
            "1,maxcpus=2",
            "-m",
        ]
        .map(OsString::from)
        .into();
        args.push(self.memory_mib.to_string().into());
        args.extend(["-bios".into(), self.bios.into()]);
        args.extend(
            [
                "-display",
                "none",
                "-no-reboot",
                "-serial",
                "stdio",
                "-device",
            ]
            .map(OsString::from),
        );
        args.push(format!("isa-debug-exit,iobase={EXIT_PORT:#x},iosize=1").into());
        if let Some((paused, socket)) = self.gdb
            && paused == core
        {
            args.extend(["-S".into(), "-gdb".into()]);
            args.push(concat([
                OsStr::new("unix:"),
                &opt_value(socket.as_os_str()),
                OsStr::new(",server=on,wait=off"),
            ]));
        }
        args.extend(["-kernel".into(), IMAGE.into()]);
        args.push("-append".into());
        // QEMU puts the image path before these words; the kernel reads
        // only what follows the separator's last occurrence.
        args.push(self.boot.to_args().into());
        let dir = self.dir();
        let model = self.mode.model();
        if let Some(model) = model {
            // The plugin reads its options as UTF-8 (QEMU hands it C
            // strings): a path that is not could never reach it intact.
            let mem = self.mem.to_string_lossy().into_owned();
            let options = PluginOptions::new(self.chip, core, self.boot.cores(), model, mem)
                .expect("a core of the run, of a known chip")
                .with_entry(self.entry);
            let mut plugin = concat([OsStr::new("file="), &opt_value(self.plugin.as_os_str())]);
            for arg in options.to_args() {
                plugin.push(",");
                plugin.push(opt_value(OsStr::new(&arg)));
            }
            args.push("-plugin".into());
            args.push(plugin);
            // Private RAM in a file the plugin reads page tables from.
            args.push("-object".into());
            args.push(concat([
                OsStr::new("memory-backend-file,id=ram,share=on,mem-path="),
                &opt_value(chipmem::ram_path(dir, core).as_os_str()),
                OsStr::new(&format!(",size={}M", self.memory_mib)),
            ]));
            args.extend(["-machine".into(), "memory-backend=ram".into()]);
        }

        let layout = Layout::new(self.chip);
        let mem = opt_value(self.mem.as_os_str());
        let view = opt_value(chipmem::view_path(dir, core).as_os_str());
        for (i, region) in self.chip.shared_regions().enumerate() {
            let offset = layout.offset(region.kind, core);
            let file = if model.is_some() && region.kind.is_cacheable() {
                &view
            } else {
                &mem
            };
            args.push("-object".into());
            args.push(concat([
                OsStr::new(&format!("memory-backend-file,id=r{i},share=on,mem-path=")),
                file,
                OsStr::new(&format!(",size={},offset={offset}", region.size)),
            ]));
            args.push("-device".into());
            args.push(format!("ivshmem-plain,memdev=r{i},{}", pci_address(i)).into());
        }
        args
    }
}

/// The `addr=` (and `multifunction=`) settings of the `i`-th device: eight
/// functions to a slot, slots numbered in hex as QEMU reads them.
fn pci_address(i: usize) -> String {
    let (slot, function) = (FIRST_SLOT + i / FUNCTIONS, i % FUNCTIONS);
    // Function 0 must announce that the slot has more functions, or the
    // guest's bus scan stops at it.
    let multifunction = if function == 0 {
        ",multifunction=on"
    } else {
        ""
    };
    format!("addr={slot:x}.{function}{multifunction}")
}

/// `value` as it must appear inside a QEMU `key=value,...` option string,
/// where a comma that belongs to the value is written twice.
fn opt_value(value: &OsStr) -> OsString {
    let mut escaped = Vec::with_capacity(value.len());
    for &byte in value.as_bytes() {
        escaped.push(byte);
        if byte == b',' {
            escaped.push(b',');
        }
    }
    OsString::from_vec(escaped)
}

fn concat<const N: usize>(parts: [&OsStr; N]) -> OsString {
    parts.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU64;
    use std::sync::LazyLock;

    use chip::{Model, SCC, SharedRegionKind, Time, WtReads};

    use super::*;

    /// Every core of the chip running `ring`.
    static RING: LazyLock<BootArgs<'static>> =
        LazyLock::new(|| BootArgs::new(&SCC, 48, Some("ring"), Vec::new()).unwrap());

    fn launch<'a>(mem: &'a Path) -> Launch<'a> {
        Launch {
            chip: &SCC,
            boot: &RING,
            entry: 0x10_0000,
            plugin: Path::new("/p/libemu_plugin.so"),
            bios: Path::new("/usr/share/qemu/qboot.rom"),
            mem,
            memory_mib: DEFAULT_MEMORY_MIB,
            mode: Mode::default(),
            gdb: None,
        }
    }

    fn strings(args: Vec<OsString>) -> Vec<String> {
        args.into_iter().map(|a| a.into_string().unwrap()).collect()
    }

    /// The value following the first occurrence of `flag`.
    fn value_of<'a>(args: &'a [String], flag: &str) -> &'a str {
        let at = args.iter().position(|a| a == flag).unwrap();
        &args[at + 1]
    }

    #[test]
    fn machine_boot_and_exit_arguments() {
        let args = strings(launch(Path::new("/run/chip.mem")).args(SCC.core(5).unwrap()));
        let head = "-M pc,pit=off -nodefaults -cpu pentium -smp 1,maxcpus=2 -m 32 \
                    -bios /usr/share/qemu/qboot.rom -display none -no-reboot -serial stdio \
                    -device isa-debug-exit,iobase=0xf4,iosize=1 -kernel image";
        assert_eq!(args[..20].join(" "), head);
        assert_eq!(
            value_of(&args, "-append"),
            "-- chip=scc cores=48 program=ring"
        );
        assert_eq!(
            value_of(&args, "-plugin"),
            "file=/p/libemu_plugin.so,core=5,cores=48,chip=scc,check=off,quantum=100000,queues=on,seed=0,wt-reads=silicon,entry=0x100000,mem=/run/chip.mem"
        );
        // Each flag once; the kernel is never told its core id.
        for flag in ["-M", "-m", "-kernel", "-append", "-plugin", "-bios"] {
            assert_eq!(args.iter().filter(|a| *a == flag).count(), 1, "{flag}");
        }
        assert!(!value_of(&args, "-append").contains("core="));
    }

    #[test]
    fn the_model_is_asked_of_the_plugin_as_it_reads_it() {
        let mut run = launch(Path::new("/run/chip.mem"));
        let models = [
            Model {
                check: true,
                wt_reads: WtReads::Ideal,
                time: Time::On {
                    quantum: NonZeroU64::new(5000).unwrap(),
                    queues: false,
                    seed: 12,
                },
            },
            Model {
                time: Time::Off,
                ..Model::DEFAULT
            },
        ];
        for model in models {
            run.mode = Mode::Modelled(model);
            let args = strings(run.args(SCC.core(3).unwrap()));
            let plugin = value_of(&args, "-plugin");
            let options = plugin.strip_prefix("file=/p/libemu_plugin.so,").unwrap();
            let options = PluginOptions::parse(options.split(',')).unwrap();
            assert_eq!(options.model(), model, "{plugin}");
            assert_eq!(options.core(), SCC.core(3).unwrap());
            assert_eq!((options.cores(), options.mem()), (48, "/run/chip.mem"));
            assert_eq!(options.entry(), Some(0x10_0000));
        }
        // The last model has no time, so no queues.
        let args = strings(run.args(SCC.core(0).unwrap()));
        let plugin = value_of(&args, "-plugin");
        assert!(
            plugin.contains(",check=off,quantum=off,wt-reads=silicon,entry=0x100000,"),
            "{plugin}"
        );
    }

    #[test]
    fn only_the_debugged_core_waits_for_gdb_on_its_socket() {
        let mut run = launch(Path::new("/run/chip.mem"));
        let socket = Path::new("/run/a,b/gdb.sock");
        run.gdb = Some((SCC.core(3).unwrap(), socket));
        let debugged = strings(run.args(SCC.core(3).unwrap()));
        assert!(debugged.contains(&"-S".to_owned()));
        assert_eq!(
            value_of(&debugged, "-gdb"),
            "unix:/run/a,,b/gdb.sock,server=on,wait=off"
        );
        let other = strings(run.args(SCC.core(2).unwrap()));
        assert!(!other.iter().any(|a| a == "-S" || a == "-gdb"), "{other:?}");
    }

    #[test]
    fn program_settings_follow_the_program_on_the_command_line() {
        let mut run = launch(Path::new("/run/chip.mem"));
        let boot = BootArgs::new(&SCC, 48, Some("ring"), vec![("scheme", "mcs-wp")]).unwrap();
        run.boot = &boot;
        let args = strings(run.args(SCC.core(0).unwrap()));
        assert_eq!(
            value_of(&args, "-append"),
            "-- chip=scc cores=48 program=ring scheme=mcs-wp"
        );
    }

    #[test]
    fn one_device_per_region_in_slot_function_order() {
        let mem = Path::new("/run/chip.mem");
        let layout = Layout::new(&SCC);
        for core in [0, 1, 29, 47].map(|n| SCC.core(n).unwrap()) {
            let args = strings(launch(mem).args(core));
            let objects: Vec<&String> = args
                .windows(2)
                .filter(|w| w[0] == "-object" && !w[1].contains("id=ram,"))
                .map(|w| &w[1])
                .collect();
            let devices: Vec<&String> = args
                .windows(2)
                .filter(|w| w[0] == "-device" && w[1].starts_with("ivshmem"))
                .map(|w| &w[1])
                .collect();
            let regions: Vec<_> = SCC.shared_regions().collect();
            assert_eq!((objects.len(), devices.len()), (16, 16));
            for (i, region) in regions.iter().enumerate() {
                let offset = layout.offset(region.kind, core);
                // Cacheable regions show the core's view, registers G.
                let file = if region.kind.is_cacheable() {
                    format!("/run/view-{:02}.mem", core.index())
                } else {
                    "/run/chip.mem".to_owned()
                };
                assert_eq!(
                    *objects[i],
                    format!(
                        "memory-backend-file,id=r{i},share=on,mem-path={file},size={},offset={offset}",
                        region.size
                    )
                );
            }
            assert_eq!(
                devices[0],
                "ivshmem-plain,memdev=r0,addr=2.0,multifunction=on"
            );
            assert_eq!(devices[1], "ivshmem-plain,memdev=r1,addr=2.1");
            assert_eq!(devices[7], "ivshmem-plain,memdev=r7,addr=2.7");
            assert_eq!(
                devices[8],
                "ivshmem-plain,memdev=r8,addr=3.0,multifunction=on"
            );
            // The own-MPB device shows the tile's MPB.
            let own_mpb = regions
                .iter()
                .position(|r| r.kind == SharedRegionKind::OwnMpb)
                .unwrap();
            let offset_of = |o: &str| o.rsplit_once("offset=").unwrap().1.parse::<u64>().unwrap();
            assert_eq!(offset_of(objects[own_mpb]), layout.mpb(SCC.tile_of(core)));
            assert!(objects[15].ends_with(&format!("offset={}", layout.fpga(core))));
        }
    }

    #[test]
    fn plain_mode_has_no_plugin_and_shows_the_chip_memory_everywhere() {
        let mem = Path::new("/run/chip.mem");
        let mut launch = launch(mem);
        launch.mode = Mode::Plain;
        let args = strings(launch.args(SCC.core(3).unwrap()));
        assert!(!args.iter().any(|a| a == "-plugin" || a == "-machine"));
        let objects: Vec<_> = args.windows(2).filter(|w| w[0] == "-object").collect();
        assert_eq!(objects.len(), 16);
        assert!(
            objects
                .iter()
                .all(|w| w[1].contains("mem-path=/run/chip.mem,"))
        );
    }

    #[test]
    fn modelled_mode_backs_private_ram_with_a_file() {
        let args = strings(launch(Path::new("/run/chip.mem")).args(SCC.core(7).unwrap()));
        assert_eq!(value_of(&args, "-machine"), "memory-backend=ram");
        assert!(args.contains(
            &"memory-backend-file,id=ram,share=on,mem-path=/run/ram-07.mem,size=32M".to_owned()
        ));
    }

    #[test]
    fn slots_run_past_nine_in_hex() {
        assert_eq!(pci_address(0), "addr=2.0,multifunction=on");
        assert_eq!(pci_address(9), "addr=3.1");
        assert_eq!(pci_address(64), "addr=a.0,multifunction=on");
    }

    #[test]
    fn commas_in_paths_are_doubled_inside_option_strings() {
        let mem = Path::new("/tmp/a,b/chip.mem");
        let args = strings(launch(mem).args(SCC.core(0).unwrap()));
        assert!(value_of(&args, "-plugin").ends_with(",mem=/tmp/a,,b/chip.mem"));
        assert!(value_of(&args, "-object").contains("mem-path=/tmp/a,,b/ram-00.mem,size="));
    }

    /// Whatever the image's path and the run's directory, QEMU boots the
    /// same path, so the kernel reads the same command line.
    #[test]
    fn every_run_boots_the_image_under_one_name_in_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("some checkout/target/programs");
        std::fs::create_dir_all(image.parent().unwrap()).unwrap();
        std::fs::write(&image, b"ELF").unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        let mem = run.join("chip.mem");
        let launch = launch(&mem);
        assert_eq!(launch.dir(), run);
        assert_eq!(copy_image(&image, launch.dir()).unwrap(), run.join(IMAGE));
        let args = strings(launch.args(SCC.core(0).unwrap()));
        assert_eq!(value_of(&args, "-kernel"), IMAGE);
        assert_eq!(std::fs::read(run.join(IMAGE)).unwrap(), b"ELF");
        assert!(
            copy_image(&image, launch.dir()).is_err(),
            "a run's directory gets its image once"
        );
        // A rebuild during the run leaves the run's image as it booted.
        std::fs::write(&image, b"ELF, rebuilt").unwrap();
        assert_eq!(std::fs::read(run.join(IMAGE)).unwrap(), b"ELF");
        assert!(
            !std::fs::symlink_metadata(run.join(IMAGE))
                .unwrap()
                .is_symlink()
        );
    }

    #[test]
    fn exit_statuses_follow_isa_debug_exit() {
        assert_eq!(exit_status(GUEST_SUCCESS), 33);
        assert_eq!(exit_status(GUEST_FAILURE), 35);
        assert_eq!(exit_status(GUEST_ENDS_RUN), 37);
    }
}
