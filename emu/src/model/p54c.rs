// SPDX-License-Identifier: GPL-2.0-or-later
//! How many cycles a P54C core takes to issue a basic block.
//!
//! The P54C (Pentium, 32-bit) issues in order into two pipes: any
//! instruction into the U pipe, and the next one into the V pipe in the
//! same cycle if both are simple and independent (a pair). This model
//! decodes each instruction of a block (with `iced-x86`), gives it a cost
//! and a pairing class from one table (`class`), and walks the block the
//! way the hardware does: pair the next two instructions if `pairs` says
//! so, else issue the first alone, and stall one cycle on an address
//! generation interlock (`agi`).
//!
//! Every memory operand is taken to hit L1: the cache and memory models
//! charge what an access costs beyond that ([`super::latency`]). Code is
//! 32-bit protected mode at CPL 0, the guest kernel's.
//!
//! Sources, named in the table and the rules by their tag:
//! - **\[PSR\]**: "Intel Pentium Instruction Set Reference", the clock
//!   counts and pairing classes (UV, PU, PV, NP) of Intel's Pentium manual
//!   per instruction (GitHub `Eun/Intel-Pentium-Instruction-Set-Reference`,
//!   `data/<mnemonic>.html`; the same tables are at faydoc.tripod.com/cpu).
//!   Where a page gives real and protected mode, the protected-mode row;
//! - **\[NG\]**: the "iAPx86" Norton Guide's timing tables
//!   (x-hacker.org/ng/iapx86, norton-guides.davep.dev/x86), whose Pentium
//!   column agrees with \[PSR\] where both have a row: the x87 rows;
//! - **\[DB\]**: Intel, "Pentium Processor User's Manual, Volume 1:
//!   Pentium Processor Data Book", section 3.1.2, the pairing rules (as
//!   reproduced at jnz.dk/faqsys/pairing.txt);
//! - **\[AF\]**: Agner Fog, "How to optimize for the Pentium family of
//!   microprocessors", chapters 9 (AGI) and 10 (pairing), on the PPlain
//!   (the P54C) and the PMMX (mirrored at xiaohui.com/dev/mmx/mmx_p_9.htm,
//!   mmx_p_10_1.htm, mmx_p_10_2.htm);
//! - **\[VT\]**: Intel VTune Performance Analyzer help, pages "Prefix" and
//!   "Prefix Penalty Indicator", on prefixes on the Pentium;
//! - **assumption**: no source read gives the number; the choice is stated
//!   where it is made.
//!
//! Where a source gives a range of cycles (bit scans, far transfers), the
//! model takes its midpoint rounded up (assumption): the cost depends on
//! data the model does not see.
//!
//! Not modelled: branch prediction (every branch is taken as predicted, 1
//! cycle in \[PSR\]); the first execution of a block (M. Schmit's "Top Ten
//! Rules for Pairing Pentium Instructions", rule 7: a U-pipe instruction
//! longer than one byte pairs only from its second execution out of the
//! code cache; QEMU blocks run many times); imperfect pairing through two
//! accesses to the same cache bank (\[AF\] 10.2: it depends on addresses);
//! the FPU's result latencies (x87 instructions cost their issue slot
//! only); the decoding of a prefix overlapping a previous multi-cycle
//! instruction (\[VT\]); and stalls across blocks (a block starts with no
//! AGI pending).
//!
//! REP string instructions cost \[PSR\]'s `a + b·n` for `n` iterations: a
//! block is charged the start-up `a` and one iteration `b`, and
//! [`BlockCost::rep_iteration`] gives `b` for the caller to charge per
//! iteration instead. QEMU runs up to 65535 iterations within one
//! execution of the block (`do_gen_rep` in `target/i386/tcg/translate.c`,
//! QEMU 10; one per execution only under icount, single-stepping,
//! EFLAGS.TF or an interrupt shadow), so the plugin counts iterations by
//! the accesses they make, whatever QEMU's split: the start-up is charged
//! per execution of the block, once per 65535 iterations at most.

use std::cell::RefCell;

use iced_x86::{
    Code, Decoder, DecoderOptions, Instruction, InstructionInfoFactory, Mnemonic, OpAccess, OpKind,
    Register,
};

/// What the model says of one basic block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockCost {
    /// Core cycles to issue the block's instructions once, every memory
    /// operand hitting L1.
    pub cycles: u32,
    /// Instructions in the block.
    pub insns: u32,
    /// Pairs issued together in the U and V pipes.
    pub pairs: u32,
    /// Address generation interlocks, one cycle each (included in
    /// [`BlockCost::cycles`]).
    pub agi_stalls: u32,
    /// Instructions the model cannot decode or does not know (including
    /// those the P54C lacks, such as CMOV or SSE): one cycle each, never
    /// paired.
    pub unknown: u32,
    /// Cycles of one iteration of the block's REP string instruction, 0 if
    /// it has none: [`BlockCost::cycles`] holds its start-up and one
    /// iteration; a caller that counts the iterations takes this one off
    /// and charges this much per iteration (see the module's docs).
    pub rep_iteration: u32,
}

/// Cycles the P54C takes to issue the instructions of a block once, given
/// each instruction's bytes (as fetched, up to 15 bytes each, prefixes
/// included).
///
/// Bytes that are not exactly one instruction the P54C knows count as one
/// unknown instruction. The register-usage buffers are kept per thread and
/// only grow, so after a thread's first blocks decoding does not allocate.
pub fn block_cost<'a>(insns: impl IntoIterator<Item = &'a [u8]>) -> BlockCost {
    block_schedule(insns).0
}

/// As [`block_cost`], with, per instruction, the cycles the block has
/// issued once that instruction has: what a clock read by it sees of its
/// block (an instruction paired with the next one issues with it).
pub fn block_schedule<'a>(insns: impl IntoIterator<Item = &'a [u8]>) -> (BlockCost, Vec<u32>) {
    FACTORY.with(|factory| {
        let mut factory = factory.borrow_mut();
        let mut block = Schedule::default();
        for bytes in insns {
            let insn = decode(&mut factory, bytes);
            block.push(insn);
        }
        block.finish()
    })
}

/// The bytes of the largest of the instruction's memory accesses (its
/// operands' and its implicit stack accesses'), if each is of 1, 2, 4 or 8
/// bytes: what each memory callback of the instruction may then be told
/// without asking QEMU. `None` for bytes that are not one instruction the
/// decoder knows, an instruction without memory accesses, a string
/// instruction (its accesses repeat), one with an access of another size
/// (a far pointer, an 80-bit float, a whole register image), which QEMU
/// may split into several, or one whose helper reads descriptor tables
/// beside its operands (a segment register load, a far or interrupt
/// transfer, a descriptor table instruction).
pub fn access_bytes(bytes: &[u8]) -> Option<u8> {
    use Mnemonic::*;
    let mut decoder = Decoder::new(32, bytes, DecoderOptions::NONE);
    let i = decoder.decode();
    let tables = matches!(
        i.mnemonic(),
        Int | Int1
            | Int3
            | Into
            | Iret
            | Iretd
            | Retf
            | Lds
            | Les
            | Lfs
            | Lgs
            | Lss
            | Lgdt
            | Lidt
            | Lldt
            | Ltr
            | Lar
            | Lsl
            | Verr
            | Verw
    ) || i.is_call_far()
        || i.is_call_far_indirect()
        || i.is_jmp_far()
        || i.is_jmp_far_indirect();
    if i.is_invalid() || i.len() != bytes.len() || i.is_string_instruction() || tables {
        return None;
    }
    FACTORY
        .with(|factory| {
            let mut factory = factory.borrow_mut();
            let info = factory.info(&i);
            let loads_segment = info
                .used_registers()
                .iter()
                .any(|r| r.register().is_segment_register() && r.access() != OpAccess::Read);
            if loads_segment {
                return None;
            }
            let mut sizes = info.used_memory().iter().map(|m| m.memory_size().size());
            sizes.try_fold(0, |largest: u8, size| match size {
                1 | 2 | 4 | 8 => Some(largest.max(size as u8)),
                _ => None,
            })
        })
        .filter(|&largest| largest > 0)
}

thread_local! {
    /// The register-usage decoder, whose buffers are reused from block to
    /// block.
    static FACTORY: RefCell<InstructionInfoFactory> = RefCell::new(InstructionInfoFactory::new());
}

/// Where an instruction may issue (\[PSR\] "Pairing Categories", \[NG\] for
/// the x87 ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pipe {
    /// Pairable in the U pipe or the V pipe.
    Uv,
    /// Pairable in the U pipe only.
    Pu,
    /// Pairable in the V pipe only.
    Pv,
    /// Not pairable.
    Np,
    /// x87 instruction that pairs in the U pipe with an FXCH in the V pipe.
    Fx,
    /// FXCH, which pairs in the V pipe after an [`Pipe::Fx`] instruction.
    Fv,
}

/// The operand form that selects an instruction's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// No memory operand.
    Reg,
    /// A memory source operand.
    Load,
    /// A memory first (destination) operand: store, read-modify-write, or
    /// a compare or push that only reads it.
    Mem,
}

/// General registers as bits: EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI.
/// A partial register (AL, AX) is its full register (\[AF\] 10.1 rule 3).
type Regs = u8;
const ESP: Regs = 1 << 4;

/// The stack instructions whose ESP updates the pairing and AGI rules
/// exempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stack {
    None,
    Push,
    Pop,
    Call,
    Ret,
}

/// One decoded instruction, as the schedule needs it.
#[derive(Debug, Clone, Copy)]
struct Insn {
    /// Cycles when issued alone (prefix penalty included).
    cycles: u32,
    /// Where it may issue, after the prefix and displacement rules.
    pipe: Pipe,
    /// A pairable read-modify-write of memory (\[DB\]: two such paired
    /// add a sequencing delay).
    rmw: bool,
    /// Registers read, address registers included.
    reads: Regs,
    /// Registers written.
    writes: Regs,
    /// Registers its address generation reads: base and index, and ESP,
    /// ESI or EDI where it addresses memory through them implicitly.
    address: Regs,
    /// Stack instruction class, for the ESP exceptions.
    stack: Stack,
    /// Cycles of one REP iteration, if it is a REP string instruction.
    rep: Option<u32>,
}

impl Insn {
    /// What the model assumes of bytes it does not know: one cycle, not
    /// pairable, and no register the next instruction could wait for.
    const UNKNOWN: Insn = Insn {
        cycles: 1,
        pipe: Pipe::Np,
        rmw: false,
        reads: 0,
        writes: 0,
        address: 0,
        stack: Stack::None,
        rep: None,
    };
}

/// Cycles and pairing class of an instruction in 32-bit protected mode,
/// by mnemonic and operand form, or `None` if the P54C does not have it or
/// the model does not know it. Each row's source is its trailing comment.
fn class(i: &Instruction) -> Option<(u32, Pipe)> {
    use Form::{Load, Mem, Reg};
    use Mnemonic::*;
    use Pipe::*;

    let form = form(i);
    let rep = i.has_rep_prefix() || i.has_repne_prefix();
    // Operand size in bytes, from the first operand.
    let size = match i.op0_kind() {
        OpKind::Register => i.op0_register().size(),
        _ => i.memory_size().size(),
    };
    let imm = (0..i.op_count()).any(|n| is_immediate(i.op_kind(n)));
    // Shift count in CL rather than 1 or an immediate.
    let by_cl = i.op_count() == 2 && i.op1_kind() == OpKind::Register;
    let setcc = matches!(
        i.mnemonic(),
        Seta | Setae
            | Setb
            | Setbe
            | Sete
            | Setg
            | Setge
            | Setl
            | Setle
            | Setne
            | Setno
            | Setnp
            | Setns
            | Seto
            | Setp
            | Sets
    );
    // XCHG of EAX with a register, in its one-byte encoding.
    let one_byte_xchg = matches!(i.code(), Code::Xchg_r16_AX | Code::Xchg_r32_EAX);
    // Cycles of a string instruction with and without REP.
    let string = |with_rep, without| if rep { with_rep } else { without };
    let special = |r: Register| r.is_segment_register() || r.is_cr() || r.is_dr();
    let special_mov =
        (0..i.op_count()).any(|n| i.op_kind(n) == OpKind::Register && special(i.op_register(n)));

    if i.is_jcc_short_or_near() {
        return Some((1, Pv)); // PSR jcc: 1 PV, taken or not
    }
    Some(match (i.mnemonic(), form) {
        // Moves and address arithmetic.
        (Mov, _) if special_mov => return special_move(i), // PSR mov
        (Mov, _) => (1, Uv),                               // PSR mov: 1 UV in every form
        (Lea, _) => (1, Uv),                               // PSR lea
        (Nop, _) if matches!(i.code(), Code::Nopd | Code::Nopw) => (1, Uv), // PSR nop
        (Xchg, _) if one_byte_xchg => (2, Np),             // PSR xchg acc,reg
        (Xchg, _) => (3, Np),                              // PSR xchg reg,reg and with memory
        (Movzx | Movsx, _) => (3, Np),                     // PSR movzx, movsx
        (Bswap, _) => (1, Np),                             // PSR bswap
        (Cdq | Cwd, _) => (2, Np),                         // PSR cdq
        (Cwde | Cbw, _) => (3, Np),                        // PSR cbw
        // ALU.
        (Add | Sub | And | Or | Xor, Reg) => (1, Uv), // PSR add: reg,reg and reg,imm
        (Add | Sub | And | Or | Xor, Load) => (2, Uv), // PSR add: reg,mem
        (Add | Sub | And | Or | Xor, Mem) => (3, Uv), // PSR add: mem,reg and mem,imm
        (Adc | Sbb, Reg) => (1, Pu),                  // PSR adc, sbb
        (Adc | Sbb, Load) => (2, Pu), // PSR sbb reg,mem (adc's page says 4, taken as a misprint)
        (Adc | Sbb, Mem) => (3, Pu),  // PSR adc, sbb
        (Cmp | Test, Reg) => (1, Uv), // PSR cmp, test
        (Cmp | Test, _) => (2, Uv),   // PSR cmp, test with memory
        (Inc | Dec, Reg) => (1, Uv),  // PSR inc, dec
        (Inc | Dec, _) => (3, Uv),    // PSR inc, dec mem
        (Neg | Not, Reg) => (1, Np),  // PSR neg, not
        (Neg | Not, _) => (3, Np),    // PSR neg, not mem
        // Shifts and rotates.
        (Shl | Sal | Shr | Sar | Rol | Ror, _) if by_cl => (4, Np), // PSR shl, rol by CL
        (Shl | Sal | Shr | Sar | Rol | Ror, Reg) => (1, Pu),        // PSR shl, rol by 1 or imm
        (Shl | Sal | Shr | Sar | Rol | Ror, _) => (3, Pu),          // PSR shl, rol mem
        (Rcl | Rcr, Reg) if !by_cl && i.immediate8() == 1 => (1, Pu), // PSR rcl reg,1
        (Rcl | Rcr, _) if !by_cl && i.immediate8() == 1 => (3, Pu), // PSR rcl mem,1
        (Rcl | Rcr, Reg) if by_cl => (16, Np),                      // PSR rcl reg,cl: 7-24
        (Rcl | Rcr, _) if by_cl => (18, Np),                        // PSR rcl mem,cl: 9-26
        (Rcl | Rcr, Reg) => (17, Np),                               // PSR rcl reg,imm: 8-25
        (Rcl | Rcr, _) => (19, Np),                                 // PSR rcl mem,imm: 10-27
        (Shld | Shrd, Mem) if by_cl_3rd(i) => (5, Np),              // PSR shld mem,reg,cl
        (Shld | Shrd, _) => (4, Np),                                // PSR shld, shrd
        // Multiply and divide.
        (Mul | Imul, _) if i.op_count() == 1 && size < 4 => (11, Np), // PSR mul, imul r8/r16
        (Mul | Imul, _) => (10, Np), // PSR mul r32; imul r32 and the two- and three-operand forms
        (Div, _) => (div_cycles(size, [17, 25, 41]), Np), // PSR div
        (Idiv, _) => (div_cycles(size, [22, 30, 46]), Np), // PSR idiv
        // Bits.
        (Bt, Mem) if !imm => (9, Np),           // PSR bt mem,reg
        (Bt, _) => (4, Np),                     // PSR bt
        (Bts | Btr | Btc, Reg) => (7, Np),      // PSR bts, btr, btc
        (Bts | Btr | Btc, _) if imm => (8, Np), // PSR bts mem,imm
        (Bts | Btr | Btc, _) => (13, Np),       // PSR bts mem,reg
        (Bsf, _) => (24, Np),                   // PSR bsf: 6-42
        (Bsr, _) => (39, Np),                   // PSR bsr: 7-71
        (_, Reg) if setcc => (1, Np),           // PSR setcc: "1/2", read as reg/mem
        (_, _) if setcc => (2, Np),             // PSR setcc
        (Xadd, Reg) => (3, Np),                 // PSR xadd
        (Xadd, _) => (4, Np),                   // PSR xadd mem
        (Cmpxchg, Reg) => (5, Np),              // PSR cmpxchg
        (Cmpxchg, _) => (6, Np),                // PSR cmpxchg mem
        (Cmpxchg8b, _) => (10, Np),             // PSR cmpxchg8b
        // Stack.
        (Push, Reg) if !imm && !special(i.op0_register()) => (1, Uv), // PSR push reg
        (Push, Reg) => (1, Np),                                       // PSR push imm, push sreg
        (Push, _) => (2, Np),                                         // PSR push mem
        (Pop, Reg) if !special(i.op0_register()) => (1, Uv),          // PSR pop reg
        (Pop, Reg) => (8, Np),                                        // PSR pop sreg: 3-12
        (Pop, _) => (3, Np),                                          // PSR pop mem
        (Pushad | Pusha, _) => (5, Np),                               // PSR pusha
        (Popad | Popa, _) => (5, Np),                                 // PSR popa
        (Pushfd | Pushf, _) => (3, Np),                               // PSR pushf (protected mode)
        (Popfd | Popf, _) => (6, Np),                                 // PSR popf
        (Enter, _) => (enter_cycles(i.immediate8_2nd()), Np),         // PSR enter
        (Leave, _) => (3, Np),                                        // PSR leave
        // Control transfers (jcc above).
        (Jmp, _) if i.is_jmp_short_or_near() => (1, Pv), // PSR jmp short, near
        (Jmp, _) if i.is_jmp_far() || i.is_jmp_far_indirect() => (4, Np), // PSR jmp far, mem48
        (Jmp, _) => (2, Np),                             // PSR jmp reg, mem
        (Call, _) if i.is_call_near() => (1, Pv),        // PSR call near
        (Call, _) if i.is_call_far() => (9, Np),         // PSR call far: 4-13
        (Call, _) if i.is_call_far_indirect() => (10, Np), // PSR call mem32: 5-14
        (Call, _) => (2, Np),                            // PSR call reg, mem
        (Ret, _) if imm => (3, Np),                      // PSR retn imm16
        (Ret, _) => (2, Np),                             // PSR retn
        (Retf, _) => (4, Np),                            // PSR retf
        (Iretd | Iret, _) => (19, Np),                   // PSR iretd: 10-27
        (Int | Int3, _) => (55, Np),                     // PSR int (protected mode): 27-82
        (Loop, _) => (6, Np),                            // PSR loop: "5/6", the larger
        // String instructions: REP forms charge one iteration. The guards
        // leave out SSE2's `movsd` and `cmpsd`, which the P54C lacks.
        (Movsb | Movsw | Movsd, _) if i.is_string_instruction() => (string(1, 4), Np), // PSR movs
        (Stosb | Stosw | Stosd, _) => (string(1, 3), Np),                              // PSR stos
        (Lodsb | Lodsw | Lodsd, _) => (2, Np), // PSR lods; REP lods as lods (assumption)
        (Cmpsb | Cmpsw | Cmpsd, _) if i.is_string_instruction() => (string(4, 5), Np), // PSR cmps
        (Scasb | Scasw | Scasd, _) => (4, Np), // PSR scas
        (Insb | Insw | Insd, _) => (6, Np),    // PSR ins, CPL <= IOPL
        (Outsb | Outsw | Outsd, _) => (10, Np), // PSR outs, CPL <= IOPL
        (Xlatb, _) => (4, Np),                 // PSR xlat
        // Flags.
        (Clc | Stc | Cmc | Cld | Std | Lahf | Sahf, _) => (2, Np), // PSR clc, cld, lahf
        (Cli | Sti, _) => (7, Np),                                 // PSR cli, sti
        // System.
        (Cpuid, _) => (14, Np),        // PSR cpuid
        (Rdtsc, _) => (7, Np),         // PSR rdtsc: 6-7
        (Rdmsr, _) => (22, Np),        // PSR rdmsr: 20-24
        (Wrmsr, _) => (38, Np),        // PSR wrmsr: 30-45
        (In, _) => (4, Np),            // PSR in, CPL <= IOPL
        (Out, _) => (9, Np),           // PSR out, CPL <= IOPL
        (Hlt, _) => (4, Np),           // PSR hlt
        (Wbinvd | Invd, _) => (1, Np), // the rest: cache model (chip::Timing::wbinvd, invd)
        (Invlpg, _) => (25, Np),       // PSR invlpg
        (Lgdt | Lidt, _) => (6, Np),   // PSR lgdt
        (Sgdt | Sidt, _) => (4, Np),   // PSR sgdt
        (Lldt, _) => (9, Np),          // PSR lldt
        (Ltr, _) => (10, Np),          // PSR ltr
        (Lmsw, _) => (8, Np),          // PSR lmsw
        (Clts, _) => (10, Np),         // PSR clts
        (Wait, _) => (1, Np),          // PSR wait
        (Ud2, _) => (1, Np),           // raises #UD; the exception is not modelled (assumption)
        // x87 (optional): issue cycles only, result latency not modelled.
        (Fld, _) if i.memory_size().size() == 10 => (3, Np), // NG fld m80
        (Fld, _) => (1, Fx),                                 // NG fld reg, m32, m64
        (Fadd | Faddp, _) => (1, Fx),                        // NG fadd: "3/1", latency/throughput
        (Fcom | Fcomp, _) => (1, Fx),                        // NG fcom: "4/1"
        (Fabs | Fchs, _) => (1, Fx),                         // NG fabs, fchs
        (Fxch, _) => (1, Fv), // NG fxch: "0-1", pairs in V with FX instructions
        _ => return None,
    })
}

/// `mov` to or from a segment, control or debug register (\[PSR\] mov,
/// protected mode).
fn special_move(i: &Instruction) -> Option<(u32, Pipe)> {
    let to = i.op0_register();
    let from = i.op1_register();
    Some(if to.is_segment_register() {
        (7, Pipe::Np) // 2-11, more with a new descriptor
    } else if from.is_segment_register() {
        (1, Pipe::Np)
    } else if to.is_cr() {
        (22, Pipe::Np) // "12/22 (depends on which register)": the larger
    } else if from.is_cr() {
        (4, Pipe::Np)
    } else {
        (12, Pipe::Np) // debug registers: "2/12" and "11/12", the larger
    })
}

/// Cycles of a divide by operand size, from `[byte, word, dword]`.
fn div_cycles(size: usize, by_size: [u32; 3]) -> u32 {
    match size {
        1 => by_size[0],
        2 => by_size[1],
        _ => by_size[2],
    }
}

/// Cycles of ENTER at nesting `level` (\[PSR\]: 11 at 0, 15 at 1,
/// 15 + 2·level above).
fn enter_cycles(level: u8) -> u32 {
    match level {
        0 => 11,
        1 => 15,
        l => 15 + 2 * u32::from(l),
    }
}

/// Whether an operand is an immediate.
fn is_immediate(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Immediate8
            | OpKind::Immediate8_2nd
            | OpKind::Immediate16
            | OpKind::Immediate32
            | OpKind::Immediate8to16
            | OpKind::Immediate8to32
    )
}

/// SHLD or SHRD with its count in CL.
fn by_cl_3rd(i: &Instruction) -> bool {
    i.op_count() == 3 && i.op2_kind() == OpKind::Register
}

/// The operand form of an instruction.
fn form(i: &Instruction) -> Form {
    if i.op0_kind() == OpKind::Memory {
        Form::Mem
    } else if (0..i.op_count()).any(|n| i.op_kind(n) == OpKind::Memory) {
        Form::Load
    } else {
        Form::Reg
    }
}

/// Decodes one instruction's bytes into what the schedule needs.
fn decode(factory: &mut InstructionInfoFactory, bytes: &[u8]) -> Option<Insn> {
    let mut decoder = Decoder::new(32, bytes, DecoderOptions::NONE);
    let i = decoder.decode();
    if i.is_invalid() || i.len() != bytes.len() {
        // CL1INVMB (0F 0A), the SCC's own instruction: the cache model
        // charges it (chip::Timing::cl1invmb), its own cycle included.
        return (bytes[prefixes(bytes)..] == [0x0F, 0x0A]).then_some(Insn {
            cycles: 1,
            ..Insn::UNKNOWN
        });
    }
    let (cycles, pipe) = class(&i)?;

    // Prefixes (0F is an opcode byte here, not a prefix): \[DB\] "instructions
    // with prefixes (other than 0F of JCC instructions) can only occur in
    // the u-pipe"; \[VT\] lock, segment, operand- and address-size prefixes
    // cost "one additional cycle"; LOCK itself is NP (\[PSR\] lock).
    let start = prefixes(bytes);
    let prefixed = start > 0;
    let penalty = bytes[..start].iter().any(|b| !matches!(b, 0xF2 | 0xF3));
    // \[DB\] "Neither instruction may contain both a displacement and an
    // immediate"; \[PSR\] add mem,imm: "not pairable if there is a
    // displacement and immediate".
    let imm = (0..i.op_count()).any(|n| is_immediate(i.op_kind(n)));
    let disp_and_imm = i.memory_displ_size() > 0 && imm;
    let pipe = match pipe {
        _ if i.has_lock_prefix() || disp_and_imm => Pipe::Np,
        Pipe::Uv if prefixed => Pipe::Pu,
        Pipe::Pv if prefixed => Pipe::Np,
        p => p,
    };

    let info = factory.info(&i);
    let (mut reads, mut writes) = (0, 0);
    for used in info.used_registers() {
        let bit = gpr(used.register());
        match used.access() {
            OpAccess::Read | OpAccess::CondRead => reads |= bit,
            OpAccess::Write | OpAccess::CondWrite => writes |= bit,
            OpAccess::ReadWrite | OpAccess::ReadCondWrite => {
                reads |= bit;
                writes |= bit;
            }
            OpAccess::None | OpAccess::NoMemAccess => {}
        }
    }
    // Address registers: of each memory access, and of LEA's operand, which
    // goes through address generation without accessing memory (\[AF\] 9).
    let mut address = info
        .used_memory()
        .iter()
        .fold(0, |acc, m| acc | gpr(m.base()) | gpr(m.index()));
    if i.mnemonic() == Mnemonic::Lea {
        address |= gpr(i.memory_base()) | gpr(i.memory_index());
    }
    let stack = match i.mnemonic() {
        Mnemonic::Push => Stack::Push,
        Mnemonic::Pop => Stack::Pop,
        Mnemonic::Call if !i.is_call_far() && !i.is_call_far_indirect() => Stack::Call,
        Mnemonic::Ret if i.op_count() == 0 => Stack::Ret,
        _ => Stack::None,
    };
    let rmw = form(&i) == Form::Mem
        && matches!(pipe, Pipe::Uv | Pipe::Pu)
        && !matches!(i.mnemonic(), Mnemonic::Mov | Mnemonic::Cmp | Mnemonic::Test);
    // A REP form's row gives one iteration; the start-up comes on top.
    let startup = rep_startup(&i);
    let rep = startup.map(|_| cycles);
    Some(Insn {
        cycles: cycles + startup.unwrap_or(0) + u32::from(penalty),
        pipe,
        rmw,
        reads,
        writes,
        address,
        stack,
        rep,
    })
}

/// The start-up cycles of a REP string instruction, the `a` of \[PSR\]
/// rep's `a + b·count` forms (its `b` is the instruction's row in
/// [`class`]), or `None` if `i` is none: then it is charged once, as its
/// row says.
fn rep_startup(i: &Instruction) -> Option<u32> {
    use Mnemonic::*;
    if !(i.is_string_instruction() && (i.has_rep_prefix() || i.has_repne_prefix())) {
        return None;
    }
    Some(match i.mnemonic() {
        Movsb | Movsw | Movsd | Stosb | Stosw | Stosd => 3, // PSR rep movs, rep stos: 3 + n
        Cmpsb | Cmpsw | Cmpsd => 9,                         // PSR repe cmps: 9 + 4n
        Scasb | Scasw | Scasd => 8,                         // PSR repe scas: 8 + 4n
        Lodsb | Lodsw | Lodsd => 3, // no PSR row: as rep movs and rep stos (assumption)
        _ => return None,           // rep ins, rep outs: no PSR row, one execution (assumption)
    })
}

/// Number of legacy prefix bytes at the start of an instruction.
fn prefixes(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|b| {
            matches!(
                b,
                0x26 | 0x2E | 0x36 | 0x3E | 0x64 | 0x65 | 0x66 | 0x67 | 0xF0 | 0xF2 | 0xF3
            )
        })
        .count()
}

/// The bit of a general register (any part of it), 0 for any other.
fn gpr(r: Register) -> Regs {
    match r.full_register32() {
        Register::EAX => 1 << 0,
        Register::ECX => 1 << 1,
        Register::EDX => 1 << 2,
        Register::EBX => 1 << 3,
        Register::ESP => 1 << 4,
        Register::EBP => 1 << 5,
        Register::ESI => 1 << 6,
        Register::EDI => 1 << 7,
        _ => 0,
    }
}

/// Whether `u` in the U pipe and the next instruction `v` in the V pipe
/// issue in the same cycle.
///
/// \[DB\] 3.1.2 and \[AF\] 10.1: the first must be pairable in U (UV or
/// PU), the second in V (UV or PV); the second may not read or write a
/// register the first writes, partial registers counting as the full one,
/// except that PUSH+PUSH, PUSH+CALL and POP+POP pair despite ESP (\[AF\]
/// rule 6). Flags need no check: an instruction that writes them pairs with
/// a jcc that reads them (\[DB\], \[AF\] rule 5), two that write them pair
/// (\[AF\] rule 4), and no other V-pipe instruction reads them (ADC and SBB
/// are PU). An x87 FX instruction pairs with a following FXCH (\[NG\]).
fn pairs(u: &Insn, v: &Insn) -> bool {
    use Pipe::*;
    match (u.pipe, v.pipe) {
        (Fx, Fv) => return true,
        (Uv | Pu, Uv | Pv) => {}
        _ => return false,
    }
    let conflict = u.writes & (v.reads | v.writes);
    let stack_pair = matches!(
        (u.stack, v.stack),
        (Stack::Push, Stack::Push) | (Stack::Push, Stack::Call) | (Stack::Pop, Stack::Pop)
    );
    conflict == 0 || (conflict == ESP && stack_pair)
}

/// Cycles of a pair: the longer of the two, and two more if both are
/// read-modify-write (\[DB\]: when two read-modify-write instructions "are
/// paired there is a sequencing delay of two clocks"). Other imperfect
/// pairs (\[AF\] 10.2) are taken as the longer of the two (assumption).
fn pair_cycles(u: &Insn, v: &Insn) -> u32 {
    let delay = if u.rmw && v.rmw { 2 } else { 0 };
    u.cycles.max(v.cycles) + delay
}

/// Whether `next` waits one cycle for an address register that the
/// previous cycle's instructions `written` (\[AF\] 9: an address "depends on
/// the result of an instruction executing in the preceding clock cycle").
///
/// ESP as updated by PUSH, POP, CALL and RET without an immediate causes no
/// stall: "special circuitry to predict the value of ESP after a stack
/// operation" (\[AF\] 9); `written` leaves those updates out.
fn agi(written: Regs, next: &Insn) -> bool {
    written & next.address != 0
}

/// Registers an instruction leaves for the next cycle's address generation
/// to wait for.
fn agi_writes(insn: &Insn) -> Regs {
    match insn.stack {
        Stack::None => insn.writes,
        _ => insn.writes & !ESP,
    }
}

/// The block being issued: totals, the instruction waiting for a partner,
/// and the registers written in the last cycle group.
#[derive(Default)]
struct Schedule {
    cost: BlockCost,
    /// With its index in the block.
    waiting: Option<(Insn, usize)>,
    /// Per instruction so far, the block's cycles once it has issued.
    issued: Vec<u32>,
    written: Regs,
}

impl Schedule {
    /// Takes the block's next instruction (`None`: unknown).
    fn push(&mut self, insn: Option<Insn>) {
        self.cost.insns += 1;
        let insn = insn.unwrap_or_else(|| {
            self.cost.unknown += 1;
            Insn::UNKNOWN
        });
        if let Some(rep) = insn.rep {
            self.cost.rep_iteration = rep;
        }
        let index = self.issued.len();
        self.issued.push(0);
        match self.waiting.take() {
            Some((u, at)) if pairs(&u, &insn) => {
                self.issue(&u, Some(&insn));
                self.issued[at] = self.cost.cycles;
                self.issued[index] = self.cost.cycles;
            }
            Some((u, at)) => {
                self.issue(&u, None);
                self.issued[at] = self.cost.cycles;
                self.waiting = Some((insn, index));
            }
            None => self.waiting = Some((insn, index)),
        }
    }

    /// Issues one instruction, or a pair, in the next cycle.
    fn issue(&mut self, u: &Insn, v: Option<&Insn>) {
        let stall = agi(self.written, u) || v.is_some_and(|v| agi(self.written, v));
        let cycles = match v {
            Some(v) => pair_cycles(u, v),
            None => u.cycles,
        };
        self.cost.cycles += cycles + u32::from(stall);
        self.cost.agi_stalls += u32::from(stall);
        self.cost.pairs += u32::from(v.is_some());
        self.written = agi_writes(u) | v.map_or(0, agi_writes);
    }

    fn finish(mut self) -> (BlockCost, Vec<u32>) {
        if let Some((u, at)) = self.waiting.take() {
            self.issue(&u, None);
            self.issued[at] = self.cost.cycles;
        }
        (self.cost, self.issued)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The cost of a block given as one byte string per instruction.
    fn cost(block: &[&[u8]]) -> BlockCost {
        block_cost(block.iter().copied())
    }

    // Encodings (Intel syntax) used below.
    const MOV_EAX_ECX: &[u8] = &[0x89, 0xC8];
    const MOV_EDX_ESI: &[u8] = &[0x89, 0xF2];
    const MOV_EBX_EAX: &[u8] = &[0x89, 0xC3];
    const MOV_EBX_MEM_EAX: &[u8] = &[0x8B, 0x18]; // mov ebx, [eax]
    const ADD_EAX_4: &[u8] = &[0x83, 0xC0, 0x04];
    const ADD_EDX_4: &[u8] = &[0x83, 0xC2, 0x04];
    const ADD_ESI_4: &[u8] = &[0x83, 0xC6, 0x04];
    const ADD_EDI_4: &[u8] = &[0x83, 0xC7, 0x04];
    const ADD_EAX_1: &[u8] = &[0x83, 0xC0, 0x01];
    const JNZ: &[u8] = &[0x75, 0xF0];

    /// The access sizes a memory callback may take from translation: a
    /// plain operand's, a stack access's; none for string instructions,
    /// odd-sized or large operands, or no access at all.
    #[test]
    fn instructions_name_their_largest_access_when_it_is_a_plain_size() {
        let cases: &[(&[u8], Option<u8>)] = &[
            (MOV_EBX_MEM_EAX, Some(4)),
            (&[0x8A, 0x18], Some(1)),       // mov bl, [eax]
            (&[0x66, 0x8B, 0x18], Some(2)), // mov bx, [eax]
            (&[0x01, 0x18], Some(4)),       // add [eax], ebx
            (&[0x50], Some(4)),             // push eax
            (&[0xFF, 0x30], Some(4)),       // push dword [eax]
            (&[0xE8, 0, 0, 0, 0], Some(4)), // call rel32
            (&[0xC3], Some(4)),             // ret
            (&[0xDD, 0x00], Some(8)),       // fld qword [eax]
            (&[0x0F, 0xC7, 0x08], Some(8)), // cmpxchg8b [eax]
            (&[0xDB, 0x28], None),          // fld tword [eax]: 10 bytes
            (&[0xFF, 0x28], None),          // jmp far [eax]: 6 bytes
            (&[0x60], Some(4)),             // pushad: eight stores of 4
            (&[0xA5], None),                // movsd: a string instruction
            (&[0xF3, 0xA5], None),          // rep movsd
            (MOV_EAX_ECX, None),            // no memory access
            (&[0x0F, 0x0A], None),          // CL1INVMB
            (&[0x8B], None),                // truncated
            (&[0x8E, 0x18], None),          // mov ds, [eax]: and a descriptor
            (&[0x1F], None),                // pop ds
            (&[0xCD, 0x80], None),          // int 0x80
            (&[0xCF], None),                // iretd
            (&[0xC4, 0x18], None),          // les ebx, [eax]
        ];
        for &(bytes, want) in cases {
            assert_eq!(access_bytes(bytes), want, "{bytes:02x?}");
        }
    }

    #[test]
    fn independent_moves_pair_and_dependent_ones_do_not() {
        // PSR mov reg,reg: 1 UV. DB: no read-after-write dependency.
        let pair = cost(&[MOV_EAX_ECX, MOV_EDX_ESI]);
        assert_eq!((pair.cycles, pair.pairs), (1, 1));
        // mov ebx, eax reads EAX, which the first writes: 1 + 1.
        let chain = cost(&[MOV_EAX_ECX, MOV_EBX_EAX]);
        assert_eq!((chain.cycles, chain.pairs), (2, 0));
        // Write after write does not pair either (AF 10.1 rule 2).
        let waw = cost(&[MOV_EAX_ECX, &[0x89, 0xD0]]); // mov eax, edx
        assert_eq!((waw.cycles, waw.pairs), (2, 0));
    }

    #[test]
    fn each_instruction_sees_the_cycles_issued_up_to_its_own_group() {
        // A pair issues in cycle 1; the dependent move after it in 2.
        let (cost, issued) =
            block_schedule([MOV_EAX_ECX, MOV_EDX_ESI, MOV_EBX_EAX].iter().copied());
        assert_eq!(cost.cycles, 2);
        assert_eq!(issued, [1, 1, 2]);
        // A dependent chain: one cycle each.
        let (_, issued) = block_schedule([MOV_EAX_ECX, MOV_EBX_EAX].iter().copied());
        assert_eq!(issued, [1, 2]);
    }

    #[test]
    fn alu_and_jcc_pair_despite_the_flags() {
        // DB: "compare and branch ... may be paired"; AF rule 5.
        let c = cost(&[ADD_EAX_1, JNZ]);
        assert_eq!((c.cycles, c.pairs), (1, 1));
        let c = cost(&[&[0x39, 0xD8], JNZ]); // cmp eax, ebx; jnz
        assert_eq!((c.cycles, c.pairs), (1, 1));
        // A jcc first cannot take the U pipe's pair slot (PV).
        let c = cost(&[JNZ, ADD_EAX_1]);
        assert_eq!((c.cycles, c.pairs), (2, 0));
    }

    #[test]
    fn an_address_register_written_in_the_previous_cycle_stalls() {
        // AF 9: "ADD EBX,4 / MOV EAX,[EBX] ; AGI stall". They do not pair
        // (read after write): 1, then 1 + 1 stall.
        let c = cost(&[ADD_EAX_4, MOV_EBX_MEM_EAX]);
        assert_eq!((c.cycles, c.agi_stalls), (3, 1));
        // One independent instruction in between pairs with the ADD, so the
        // load still comes in the next cycle and stalls: (add, add), then
        // (add, mov) + 1.
        let c = cost(&[ADD_EAX_4, ADD_EDX_4, ADD_ESI_4, MOV_EBX_MEM_EAX]);
        assert_eq!((c.cycles, c.pairs, c.agi_stalls), (3, 2, 1));
        // With a cycle of independent work in between, no stall: (add eax,
        // add edx), (add esi, add edi), then the load alone.
        let c = cost(&[ADD_EAX_4, ADD_EDX_4, ADD_ESI_4, ADD_EDI_4, MOV_EBX_MEM_EAX]);
        assert_eq!((c.cycles, c.pairs, c.agi_stalls), (3, 2, 0));
        // LEA goes through address generation too (AF 9).
        let c = cost(&[ADD_EAX_4, &[0x8D, 0x58, 0x04]]); // lea ebx, [eax+4]
        assert_eq!(c.agi_stalls, 1);
    }

    #[test]
    fn esp_from_push_pop_and_call_is_predicted() {
        // AF 9: "ADD ESP,4 / POP ESI ; AGI stall"; "POP EAX / POP ESI ; no
        // stall, pair"; "MOV ESP,EBP / RET ; AGI stall".
        let c = cost(&[&[0x83, 0xC4, 0x04], &[0x5E]]);
        assert_eq!((c.cycles, c.agi_stalls), (3, 1));
        let c = cost(&[&[0x58], &[0x5E]]);
        assert_eq!((c.cycles, c.pairs, c.agi_stalls), (1, 1, 0));
        let c = cost(&[&[0x89, 0xEC], &[0xC3]]);
        assert_eq!((c.cycles, c.agi_stalls), (1 + 1 + 2, 1));
        // AF rule 6: PUSH + PUSH and PUSH + CALL pair despite ESP.
        let c = cost(&[&[0x50], &[0x53]]);
        assert_eq!((c.cycles, c.pairs), (1, 1));
        let c = cost(&[&[0x50], &[0xE8, 0, 0, 0, 0]]);
        assert_eq!((c.cycles, c.pairs), (1, 1));
        // But a PUSH and a load through ESP do not (read after write).
        let c = cost(&[&[0x56], &[0x8B, 0x4C, 0x24, 0x0C]]); // push esi; mov ecx, [esp+12]
        assert_eq!((c.cycles, c.pairs, c.agi_stalls), (2, 0, 0));
    }

    #[test]
    fn multiply_and_divide_cost_their_documented_cycles() {
        // PSR imul r32,r/m32: 10; mul r32: 10; imul r8: 11.
        assert_eq!(cost(&[&[0x0F, 0xAF, 0xC1]]).cycles, 10); // imul eax, ecx
        assert_eq!(cost(&[&[0xF7, 0xE1]]).cycles, 10); // mul ecx
        assert_eq!(cost(&[&[0xF6, 0xE9]]).cycles, 11); // imul cl
        // PSR div: 17 / 25 / 41 by operand size; the 16-bit form carries an
        // operand-size prefix, one cycle more (VT).
        assert_eq!(cost(&[&[0xF6, 0xF1]]).cycles, 17); // div cl
        assert_eq!(cost(&[&[0x66, 0xF7, 0xF1]]).cycles, 25 + 1); // div cx
        assert_eq!(cost(&[&[0xF7, 0xF1]]).cycles, 41); // div ecx
        assert_eq!(cost(&[&[0xF7, 0xF9]]).cycles, 46); // idiv ecx
        // NP: a following simple instruction issues after it.
        let c = cost(&[&[0xF7, 0xF1], MOV_EBX_EAX]);
        assert_eq!((c.cycles, c.pairs), (42, 0));
    }

    #[test]
    fn a_rep_string_instruction_is_charged_its_start_up_and_one_iteration() {
        // PSR rep movsd: 3 + n; movsd alone is 4.
        let rep = cost(&[&[0xF3, 0xA5]]);
        assert_eq!((rep.cycles, rep.rep_iteration), (3 + 1, 1));
        let one = cost(&[&[0xA5]]);
        assert_eq!((one.cycles, one.rep_iteration), (4, 0));
        // PSR rep stosb: 3 + n; repe cmpsb: 9 + 4n; repne scasb: 8 + 4n.
        let stos = cost(&[&[0xF3, 0xAA]]);
        assert_eq!((stos.cycles, stos.rep_iteration), (3 + 1, 1));
        let cmps = cost(&[&[0xF3, 0xA6]]);
        assert_eq!((cmps.cycles, cmps.rep_iteration), (9 + 4, 4));
        let scas = cost(&[&[0xF2, 0xAE]]);
        assert_eq!((scas.cycles, scas.rep_iteration), (8 + 4, 4));
        // REP LODS, which PSR gives no row: 3 + 2n (assumption).
        assert_eq!(cost(&[&[0xF3, 0xAC]]).cycles, 3 + 2);
        // A block around it: the REP is NP, its neighbours issue alone.
        let c = cost(&[MOV_EAX_ECX, &[0xF3, 0xA4], MOV_EDX_ESI]);
        assert_eq!((c.cycles, c.pairs, c.rep_iteration), (1 + 4 + 1, 0, 1));
        // The SSE2 movsd is not the string instruction: unknown.
        assert_eq!(cost(&[&[0xF2, 0x0F, 0x10, 0xC1]]).unknown, 1);
    }

    #[test]
    fn the_clock_reads_three_moves_issue_in_two_cycles() {
        // The kernel's clock read (chip::Timing::clock_read_issue): mov
        // dword [edx], 0; mov ecx, [edi]; mov eax, [ebx]. The store writes
        // no register, so the first load pairs with it (DB).
        let c = cost(&[&[0xC7, 0x02, 0, 0, 0, 0], &[0x8B, 0x0F], &[0x8B, 0x03]]);
        assert_eq!((c.cycles, c.pairs), (2, 1));
        assert_eq!(u64::from(c.cycles), chip::SCC.timing.clock_read_issue());
    }

    #[test]
    fn np_instructions_never_pair() {
        // PSR movzx: 3 NP; shl by CL: 4 NP; shl by imm: 1 PU.
        let c = cost(&[&[0x0F, 0xB6, 0xC3], MOV_EDX_ESI]); // movzx eax, bl
        assert_eq!((c.cycles, c.pairs), (3 + 1, 0));
        let c = cost(&[MOV_EDX_ESI, &[0x0F, 0xB6, 0xC3]]);
        assert_eq!((c.cycles, c.pairs), (1 + 3, 0));
        let c = cost(&[&[0xD3, 0xE0], &[0x89, 0xDF]]); // shl eax, cl; mov edi, ebx
        assert_eq!((c.cycles, c.pairs), (4 + 1, 0));
        let c = cost(&[&[0xC1, 0xE0, 0x02], &[0x89, 0xDF]]); // shl eax, 2; mov edi, ebx
        assert_eq!((c.cycles, c.pairs), (1, 1));
        // PU: a shift cannot take the V pipe.
        let c = cost(&[&[0x89, 0xDF], &[0xC1, 0xE0, 0x02]]);
        assert_eq!((c.cycles, c.pairs), (2, 0));
    }

    #[test]
    fn prefixes_and_displacement_with_immediate_restrict_pairing() {
        // DB: a prefixed instruction only in U; VT: one cycle more.
        let mov_ax_cx: &[u8] = &[0x66, 0x89, 0xC8];
        let c = cost(&[mov_ax_cx, MOV_EDX_ESI]);
        assert_eq!((c.cycles, c.pairs), (2, 1));
        let c = cost(&[MOV_EDX_ESI, mov_ax_cx]);
        assert_eq!((c.cycles, c.pairs), (1 + 2, 0));
        // DB: "Neither instruction may contain both a displacement and an
        // immediate": mov dword [esp+4], 5.
        let c = cost(&[&[0xC7, 0x44, 0x24, 0x04, 5, 0, 0, 0], MOV_EAX_ECX]);
        assert_eq!((c.cycles, c.pairs), (2, 0));
        // LOCK: NP and one cycle more: lock add [eax], ecx is 3 + 1.
        assert_eq!(cost(&[&[0xF0, 0x01, 0x08]]).cycles, 4);
    }

    #[test]
    fn memory_operands_cost_their_read_modify_write_cycles() {
        // PSR add reg,mem: 2; add mem,reg: 3; both UV.
        assert_eq!(cost(&[&[0x03, 0x08]]).cycles, 2); // add ecx, [eax]
        assert_eq!(cost(&[&[0x01, 0x08]]).cycles, 3); // add [eax], ecx
        // DB: two read-modify-write instructions paired: 3 + 2.
        let c = cost(&[&[0x01, 0x08], &[0x01, 0x13]]); // add [eax], ecx; add [ebx], edx
        assert_eq!((c.cycles, c.pairs), (5, 1));
    }

    #[test]
    fn unknown_bytes_cost_one_cycle_and_are_counted() {
        let cmove: &[u8] = &[0x0F, 0x44, 0xC1]; // no CMOV on the P54C
        let invalid: &[u8] = &[0xFF, 0xFF];
        let long_nop: &[u8] = &[0x0F, 0x1F, 0x00]; // a P6 instruction
        let pxor: &[u8] = &[0x66, 0x0F, 0xEF, 0xC0];
        let two: &[u8] = &[0x90, 0x90]; // two instructions in one slice
        let c = cost(&[cmove, invalid, long_nop, pxor, two, &[]]);
        assert_eq!((c.cycles, c.unknown, c.pairs, c.insns), (6, 6, 0, 6));
        // CL1INVMB is known: the cache model charges it beyond its cycle.
        let c = cost(&[&[0x0F, 0x0A]]);
        assert_eq!((c.cycles, c.unknown), (1, 0));
    }

    #[test]
    fn a_rustc_loop_body() {
        // `for &b in data { h[b as usize] += 1 }`, rustc 1.95 -O for
        // i586 with target-cpu=pentium:
        //
        //   movzx esi, byte [edx]      3 NP            cycles 1-3
        //   inc   edx                  1 UV  U  \      AGI stall on ESI: 4
        //   inc   dword [ecx+esi*4]    3 UV  V  /      pair: max(1, 3): 5-7
        //   dec   eax                  1 UV  U  \      pair: 8
        //   jne   loop                 1 PV  V  /
        //
        // 3 + (1 + 3) + 1 = 8 cycles, two pairs, one AGI stall.
        let c = cost(&[
            &[0x0F, 0xB6, 0x32],
            &[0x42],
            &[0xFF, 0x04, 0xB1],
            &[0x48],
            &[0x75, 0xF6],
        ]);
        assert_eq!((c.cycles, c.pairs, c.agi_stalls, c.unknown), (8, 2, 1, 0));

        // The FNV-1a loop of the same build: movzx alone (3); inc edx with
        // xor esi, eax (1); imul eax, esi, imm NP (10); dec ecx with jne (1).
        let c = cost(&[
            &[0x0F, 0xB6, 0x32],
            &[0x42],
            &[0x31, 0xC6],
            &[0x69, 0xC6, 0x93, 0x01, 0x00, 0x01],
            &[0x49],
            &[0x75, 0xF1],
        ]);
        assert_eq!((c.cycles, c.pairs, c.agi_stalls), (15, 2, 0));
    }

    #[test]
    fn x87_instructions_pair_with_fxch() {
        // NG: fadd "3/1 FX", fxch pairs in V with FX instructions.
        let c = cost(&[&[0xD8, 0xC1], &[0xD9, 0xC9]]); // fadd st, st(1); fxch
        assert_eq!((c.cycles, c.pairs), (1, 1));
    }

    #[test]
    fn speed() {
        // Not asserted: printed for the record (run with --release).
        let block: [&[u8]; 5] = [
            &[0x0F, 0xB6, 0x32],
            &[0x42],
            &[0xFF, 0x04, 0xB1],
            &[0x48],
            &[0x75, 0xF6],
        ];
        let blocks = 20_000;
        let start = std::time::Instant::now();
        let mut total = 0u64;
        for _ in 0..blocks {
            total += u64::from(block_cost(block.iter().copied()).cycles);
        }
        let elapsed = start.elapsed();
        assert_eq!(total, 8 * blocks);
        println!(
            "block_cost: {:.0} ns per instruction",
            elapsed.as_nanos() as f64 / (blocks * block.len() as u64) as f64
        );
    }

    proptest! {
        #[test]
        fn any_bytes_are_costed_without_panicking(
            block in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..20), 0..40)
        ) {
            let c = block_cost(block.iter().map(Vec::as_slice));
            prop_assert_eq!(c.insns as usize, block.len());
            prop_assert!(c.cycles >= c.insns - c.pairs);
            prop_assert!(c.unknown <= c.insns);
        }
    }
}
