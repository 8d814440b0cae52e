// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a QEMU exit status says about its core.

use std::fmt;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use emu::launch::{self, GUEST_ENDS_RUN, GUEST_FAILURE, GUEST_SUCCESS};

/// How one core's QEMU ended, from its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreExit {
    /// The guest reported success through the exit port.
    Success,
    /// The guest reported failure through the exit port.
    GuestFailure,
    /// The guest ended the run of every core successfully through the exit
    /// port (`shmem_global_exit(0)`).
    EndedRun,
    /// The guest reset the machine without reporting (a triple fault, for
    /// one); `-no-reboot` turns the reset into QEMU exiting with 0.
    Reset,
    /// QEMU died from a signal.
    Crashed {
        /// The signal number.
        signal: i32,
    },
    /// The chip model stopped the core: the guest did something the chip
    /// would not let it do unnoticed (the plugin's reason is on stderr).
    StoppedByModel,
    /// QEMU itself failed, e.g. a bad option or the plugin refusing to load.
    QemuError {
        /// Its exit status.
        status: i32,
    },
}

impl CoreExit {
    /// The one place that says what a QEMU exit status means.
    pub fn from_status(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) if code == launch::exit_status(GUEST_SUCCESS) => Self::Success,
            (Some(code), _) if code == launch::exit_status(GUEST_FAILURE) => Self::GuestFailure,
            (Some(code), _) if code == launch::exit_status(GUEST_ENDS_RUN) => Self::EndedRun,
            (Some(0), _) => Self::Reset,
            (Some(launch::MODEL_STOP_STATUS), _) => Self::StoppedByModel,
            (Some(status), _) => Self::QemuError { status },
            (None, Some(signal)) => Self::Crashed { signal },
            (None, None) => unreachable!("a Unix exit status has a code or a signal"),
        }
    }
}

impl fmt::Display for CoreExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Success => f.write_str("exited successfully"),
            Self::GuestFailure => f.write_str("the guest reported failure"),
            Self::EndedRun => f.write_str("ended the run of every core successfully"),
            Self::Reset => f.write_str(
                "the guest reset the machine without reporting a result (a triple fault?)",
            ),
            Self::Crashed { signal } => {
                write!(f, "QEMU crashed: killed by {}", signal_name(signal))
            }
            Self::StoppedByModel => f.write_str("the chip model stopped it (its reason is below)"),
            Self::QemuError { status } => write!(f, "QEMU failed with exit status {status}"),
        }
    }
}

fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        _ => return format!("signal {signal}"),
    };
    format!("{name} (signal {signal})")
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    fn exited(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    #[test]
    fn exit_statuses_map_to_what_the_core_did() {
        assert_eq!(CoreExit::from_status(exited(33)), CoreExit::Success);
        assert_eq!(CoreExit::from_status(exited(35)), CoreExit::GuestFailure);
        assert_eq!(CoreExit::from_status(exited(0)), CoreExit::Reset);
        assert_eq!(
            CoreExit::from_status(exited(1)),
            CoreExit::QemuError { status: 1 }
        );
        assert_eq!(
            CoreExit::from_status(exited(launch::MODEL_STOP_STATUS)),
            CoreExit::StoppedByModel
        );
        assert_eq!(
            CoreExit::from_status(ExitStatus::from_raw(libc::SIGSEGV)),
            CoreExit::Crashed {
                signal: libc::SIGSEGV
            }
        );
        assert_eq!(
            CoreExit::Crashed { signal: 11 }.to_string(),
            "QEMU crashed: killed by SIGSEGV (signal 11)"
        );
    }
}
