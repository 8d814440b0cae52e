// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multiboot (v1) entry: the header QEMU's `-kernel` loader looks for, the
//! first instructions, and the boot information the loader hands over.

use chip::args::COMMAND_LINE_MAX;

/// Value the loader leaves in EAX.
const BOOTLOADER_MAGIC: u32 = 0x2BAD_B002;
bitflags::bitflags! {
    /// Which fields of the multiboot information are valid (multiboot spec 3.3).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct InfoFlags: u32 {
        /// `mem_lower` and `mem_upper`.
        const MEMORY = 1 << 0;
        /// `cmdline`.
        const CMDLINE = 1 << 2;
    }
}

unsafe extern "C" {
    /// The kernel's bring-up, which the boot code calls with the loader's
    /// EAX (the multiboot magic) and EBX (the information block) and which
    /// never returns. Defined outside `arch`, by the start-up code, under
    /// this name: `arch` names it as a symbol so that it depends on no
    /// module above it.
    fn kernel_entry(magic: u32, info: *const u8) -> !;
}

// The header asks for page-aligned modules and a memory map (flags bits 0
// and 1); the checksum makes the three words sum to zero. The boot stack
// lives in .bss so it costs nothing in the image. It only carries the
// bring-up (a few KiB of frames: command line, page tables), without a
// guard page; the program runs on a stack of the size the command line
// asks for, with one (`start`, `stack`).
core::arch::global_asm!(
    r#"
    .section .multiboot, "a"
    .p2align 2
    .long 0x1BADB002
    .long 0x00000003
    .long -(0x1BADB002 + 0x00000003)

    .section .bss.boot_stack, "aw", @nobits
    .p2align 4
    boot_stack_bottom:
    .skip 16 * 1024
    boot_stack_top:

    .section .text._start, "ax"
    .global _start
    _start:
        cli
        mov esp, offset boot_stack_top
        push ebx
        push eax
        call {entry}
    2:
        hlt
        jmp 2b
    "#,
    entry = sym kernel_entry,
);

/// What the kernel needs from the loader's information block.
#[derive(Debug)]
pub struct BootInfo {
    /// Bytes of RAM from address 0 up to the first hole (1 MiB + `mem_upper`).
    pub ram_bytes: u32,
    /// The kernel command line (`-append`), empty if none was given.
    pub cmdline: heapless::String<COMMAND_LINE_MAX>,
}

/// Why the boot information cannot be used.
#[derive(Debug)]
pub enum BootError {
    /// EAX did not hold the multiboot magic: not started by a multiboot loader.
    NotMultiboot(u32),
    /// The loader gave no memory size.
    NoMemoryInfo,
    /// The command line is longer than the kernel keeps or not UTF-8.
    BadCmdline,
}

impl core::fmt::Display for BootError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotMultiboot(magic) => {
                write!(f, "not started by a multiboot loader (EAX = {magic:#010x})")
            }
            Self::NoMemoryInfo => f.write_str("the loader gave no memory size"),
            Self::BadCmdline => write!(
                f,
                "command line longer than {COMMAND_LINE_MAX} bytes or not UTF-8"
            ),
        }
    }
}

/// Start of the multiboot information structure (multiboot spec 3.3).
#[repr(C)]
struct MultibootInfo {
    flags: u32,
    mem_lower: u32,
    mem_upper: u32,
    boot_device: u32,
    cmdline: u32,
}

impl BootInfo {
    /// Reads the loader's information block.
    ///
    /// # Safety
    /// `info` must be the pointer the loader left in EBX, read while paging
    /// is still off (the block lives in low memory that paging later leaves
    /// unmapped).
    pub unsafe fn read(magic: u32, info: *const u8) -> Result<Self, BootError> {
        if magic != BOOTLOADER_MAGIC {
            return Err(BootError::NotMultiboot(magic));
        }
        // SAFETY: a multiboot loader passes a valid, aligned information block.
        let info = unsafe { info.cast::<MultibootInfo>().read() };
        let flags = InfoFlags::from_bits_truncate(info.flags);
        if !flags.contains(InfoFlags::MEMORY) {
            return Err(BootError::NoMemoryInfo);
        }
        let mut bytes = heapless::Vec::<u8, COMMAND_LINE_MAX>::new();
        if flags.contains(InfoFlags::CMDLINE) && info.cmdline != 0 {
            let text = info.cmdline as *const u8;
            // Bounded scan for the NUL: a longer line is refused, not truncated.
            for i in 0.. {
                // SAFETY: the loader guarantees a NUL-terminated string at
                // `cmdline`, and the scan stops at its NUL or earlier.
                let byte = unsafe { text.add(i).read() };
                if byte == 0 {
                    break;
                }
                bytes.push(byte).map_err(|_| BootError::BadCmdline)?;
            }
        }
        let cmdline = heapless::String::from_utf8(bytes).map_err(|_| BootError::BadCmdline)?;
        Ok(Self {
            ram_bytes: (1024 + info.mem_upper) * 1024,
            cmdline,
        })
    }
}
