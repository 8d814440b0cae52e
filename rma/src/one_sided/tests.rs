// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the trait adds to each layer, on the mock.

use super::*;
use crate::ErrorClass;
use crate::hal::mock::Mock;
use crate::msg::{LockMode, MsgOptions};

/// The memory-based layer.
fn memory(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

/// The message-based layer in lock mode `mode`.
fn message(hal: &Mock, mode: LockMode) -> MsgRma<'_, Mock> {
    let options = MsgOptions {
        mode,
        ..MsgOptions::default()
    };
    MsgRma::new(Comm::new(hal).expect("layout fits"), options)
}

/// What the trait adds to each layer: local accesses inside the window
/// only, assertions a call does not take refused, a get completed by a
/// flush. Returns a get completed in a lock epoch of this rank, not yet
/// finished, of 4 bytes.
fn misuse<'h, L: OneSided<'h>>(layer: &mut L) -> (L::Window, L::Get) {
    let me = layer.rank();
    let win = layer.allocate_bytes(16).unwrap();
    let class = |e: RmaError| e.class();
    assert_eq!(
        layer.local_write(win, 8, &[1; 9]).map_err(class),
        Err(ErrorClass::RmaRange)
    );
    assert_eq!(
        layer.local_read(win, 17, &mut []).map_err(class),
        Err(ErrorClass::RmaRange)
    );
    layer.local_write(win, 0, &[3; 16]).unwrap();
    assert_eq!(
        layer.fence(win, Assert::NOCHECK).map_err(class),
        Err(ErrorClass::Assert)
    );
    assert_eq!(
        layer
            .lock(win, LockType::Shared, me, Assert::NOSTORE)
            .map_err(class),
        Err(ErrorClass::Assert)
    );
    layer.lock(win, LockType::Shared, me, Assert::NONE).unwrap();
    let mut got = [0; 4];
    layer.get_flushed(win, me, 12, &mut got).unwrap();
    assert_eq!(got, [3; 4]);
    let get = layer.get(win, me, 0, &mut got).unwrap();
    layer.flush(win, me).unwrap();
    (win, get)
}

#[test]
fn misuse_of_the_trait_is_refused_on_the_memory_layer() {
    Mock::run(2, |hal| {
        let mut rma = memory(hal);
        let (win, get) = misuse(&mut rma);
        let me = rma.rank();
        rma.finish_get(get, &mut [0; 4]).unwrap();
        rma.unlock(win, me).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn misuse_of_the_trait_is_refused_on_the_message_layer() {
    Mock::run(2, |hal| {
        let mut msg = message(hal, LockMode::Immediate);
        let (win, get) = misuse(&mut msg);
        let me = msg.rank();
        assert!(matches!(
            msg.finish_get(get, &mut [0; 5]),
            Err(RmaError::BufferLength {
                len: 5,
                expected: 4,
                ..
            })
        ));
        msg.unlock(win, me).unwrap();
        msg.free(win).unwrap();
    });
}
