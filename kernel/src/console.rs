// SPDX-License-Identifier: MIT OR Apache-2.0
//! The serial console (COM1) and `print!`/`println!`.
//!
//! Each core has its own UART; the host prefixes every line with the core.

use core::fmt::{self, Write};

use spin::Mutex;
use uart_16550::SerialPort;

/// I/O port of COM1.
const COM1: u16 = 0x3F8;

static CONSOLE: Mutex<Option<SerialPort>> = Mutex::new(None);

/// Initialises the UART; output before this is dropped.
pub fn init() {
    // SAFETY: COM1 is the PC's first UART, owned by this console alone.
    let mut port = unsafe { SerialPort::new(COM1) };
    port.init();
    *CONSOLE.lock() = Some(port);
}

#[doc(hidden)]
pub fn print(args: fmt::Arguments<'_>) {
    if let Some(port) = CONSOLE.lock().as_mut() {
        let _ = port.write_fmt(args);
    }
}

/// Writes `bytes` as they are (a C program's output, which need not be
/// UTF-8).
pub fn write_bytes(bytes: &[u8]) {
    if let Some(port) = CONSOLE.lock().as_mut() {
        for &b in bytes {
            port.send(b);
        }
    }
}

/// A writer that does not take the console lock, for exception and panic
/// reports: the code that failed may be holding it.
pub fn emergency_writer() -> impl Write {
    // SAFETY: the UART was initialised by `init` (or keeps its reset state);
    // interleaving with a preempted writer can only garble text.
    unsafe { SerialPort::new(COM1) }
}

/// Prints to the serial console.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => ($crate::console::print(format_args!($($arg)*)));
}

/// Prints a line to the serial console.
#[macro_export]
macro_rules! println {
    () => ($crate::print!("\n"));
    ($($arg:tt)*) => ($crate::console::print(format_args!("{}\n", format_args!($($arg)*))));
}
