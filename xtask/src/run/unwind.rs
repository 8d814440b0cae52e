// SPDX-License-Identifier: MIT OR Apache-2.0
//! The calls a waiting core waits in: its stack unwound from the
//! instruction and stack pointer it published at its wait
//! ([`emu::timing::CoreTime`]), with the image's call frame information
//! (`.eh_frame`, which `linker.ld` keeps in the file without loading it,
//! so the loaded image is the same with it), over the core's RAM as its
//! file in the run's directory holds it (private memory is
//! identity-mapped, so a stack address is an offset in that file).

use std::fs::File;
use std::os::unix::fs::FileExt;

use addr2line::gimli::{
    BaseAddresses, CfaRule, EhFrame, LittleEndian, Register, RegisterRule, UnwindContext,
    UnwindSection,
};
use anyhow::{Context, Result, anyhow};
use object::{Object, ObjectSection};

/// The i386 DWARF register numbers the unwinding needs.
const ESP: Register = Register(4);
const EBP: Register = Register(5);
/// The return address: EIP's number.
const RETURN_ADDRESS: Register = Register(8);

/// Most frames unwound: deeper stacks are cut there.
const MAX_FRAMES: usize = 24;

/// The call sites of the frames around the instruction `pc`, outermost
/// last, as the addresses of the calls' last bytes (a return address less
/// one, which debug information places on the call's line), unwound from
/// stack pointer `sp` over `ram` with the call frame information of
/// `image` (an ELF file's bytes). Unwinding stops at the first frame the
/// information does not cover or whose return address cannot be read.
pub(super) fn call_sites(image: &[u8], ram: &File, pc: u32, sp: u32) -> Result<Vec<u32>> {
    let file = object::File::parse(image)?;
    let section = file
        .section_by_name(".eh_frame")
        .ok_or_else(|| anyhow!("the image has no .eh_frame section"))?;
    let eh_frame = EhFrame::new(section.data()?, LittleEndian);
    let bases = BaseAddresses::default().set_eh_frame(section.address());
    let mut context = Box::new(UnwindContext::new());
    let read = |address: i64| -> Option<u32> {
        let mut word = [0u8; 4];
        ram.read_exact_at(&mut word, u64::try_from(address).ok()?)
            .ok()?;
        Some(u32::from_le_bytes(word))
    };
    let (mut pc, mut esp, mut ebp) = (pc, sp, None::<u32>);
    let mut sites = Vec::new();
    for depth in 0..MAX_FRAMES {
        // Below the innermost frame, `pc` is a return address: its frame
        // is the call's, whose last byte comes just before it.
        let lookup = if depth == 0 { pc } else { pc - 1 };
        let Ok(row) = eh_frame.unwind_info_for_address(
            &bases,
            &mut context,
            u64::from(lookup),
            EhFrame::cie_from_offset,
        ) else {
            break;
        };
        let cfa = match row.cfa() {
            CfaRule::RegisterAndOffset { register, offset } => {
                let base = match *register {
                    ESP => esp,
                    EBP => match ebp {
                        Some(ebp) => ebp,
                        None => break,
                    },
                    _ => break,
                };
                i64::from(base) + offset
            }
            CfaRule::Expression(_) => break,
        };
        let saved = |register: Register| match row.register(register) {
            Some(RegisterRule::Offset(offset)) => read(cfa + offset),
            _ => None,
        };
        let Some(return_address) = saved(RETURN_ADDRESS) else {
            break;
        };
        if let Some(saved_ebp) = saved(EBP) {
            ebp = Some(saved_ebp);
        }
        if return_address == 0 {
            break;
        }
        sites.push(return_address - 1);
        pc = return_address;
        esp = u32::try_from(cfa).context("a frame's address beyond 32 bits")?;
    }
    Ok(sites)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_without_call_frame_information_is_refused() {
        let ram = tempfile::tempfile().unwrap();
        assert!(call_sites(b"not an ELF file", &ram, 0x10_0000, 0x1000).is_err());
    }
}
