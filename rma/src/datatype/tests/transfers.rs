// SPDX-License-Identifier: MIT OR Apache-2.0
//! Operations with datatypes on the mock, every element moved checked: a
//! batch of matrix transposes through a vector of hvectors, indexed
//! triangles and diagonals, a subarray halo exchange, struct records,
//! accumulate and get_accumulate through nested types, the request forms;
//! and every misuse error.

use std::string::ToString;
use std::vec;
use std::vec::Vec;

use crate::accumulate::AccumulateOp;
use crate::comm::Comm;
use crate::datatype::{Block, Datatype, Run, StructBlock};
use crate::epoch::{Assert, LockType};
use crate::hal::mock::Mock;
use crate::window::{Rma, WindowOptions};
use crate::{ErrorClass, RmaError, Vector};

fn rma(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

/// The value `owner` gives its element `index`: never 0.
fn value(owner: u32, index: u32) -> u32 {
    (owner << 24 | index).wrapping_mul(2_654_435_761) | 1
}

#[test]
fn a_batch_of_matrices_transposes_through_a_vector_of_hvectors_at_the_target() {
    const N: u32 = 5;
    const K: u32 = 3;
    const NN: u32 = N * N;
    Mock::run(3, |hal| {
        let mut rma = rma(hal);
        let (me, p) = (rma.rank(), rma.size());
        let (right, left) = ((me + 1) % p, (me + p - 1) % p);
        let e = Datatype::<u32>::element();
        // A column of an NxN matrix; N of them, each one element further
        // on, lay a row-major matrix down transposed and span one matrix.
        let column = Datatype::vector(N, 1, i64::from(N), &e).unwrap();
        let transpose = Datatype::hvector(N, 1, 4, &column).unwrap();
        assert_eq!(transpose.shape().extent, u64::from(NN));
        // K of them into every other matrix of the window.
        let batch = Datatype::vector(K, 1, 2, &transpose).unwrap();
        let batch = batch.commit().unwrap();
        assert_eq!(
            batch.runs().len(),
            (K * NN) as usize,
            "no two places adjoin"
        );
        let one = e.commit().unwrap();
        let win = rma
            .allocate::<u32>(2 * K * NN, WindowOptions::new())
            .unwrap();
        let mine: Vec<u32> = (0..K * NN).map(|i| value(me, i)).collect();

        rma.fence(win, Assert::NONE).unwrap();
        rma.put_typed(win, right, 0, &mine, one.times(K * NN), batch.times(1))
            .unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let mut got = vec![0; (2 * K * NN) as usize];
        rma.local_read(win, 0, &mut got).unwrap();
        for slot in 0..2 * K {
            for i in 0..N {
                for j in 0..N {
                    let want = if slot % 2 == 0 {
                        value(left, slot / 2 * NN + j * N + i)
                    } else {
                        0
                    };
                    let at = slot * NN + i * N + j;
                    assert_eq!(got[at as usize], want, "slot {slot} row {i} column {j}");
                }
            }
        }

        // Back from the right neighbour, the batch at its side; and its
        // first matrix alone, transposed at this side.
        let mut back = vec![0; (K * NN) as usize];
        rma.get_typed(win, right, 0, &mut back, one.times(K * NN), batch.times(1))
            .unwrap();
        assert_eq!(back, mine);
        let transpose = transpose.commit().unwrap();
        let mut first = vec![0; NN as usize];
        rma.get_typed(win, right, 0, &mut first, transpose.times(1), one.times(NN))
            .unwrap();
        assert_eq!(first, mine[..NN as usize]);
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let s = rma.stats(win).unwrap();
        assert_eq!((s.puts, s.gets), (1, 2));
        assert_eq!(
            (s.bytes_put, s.bytes_got),
            (u64::from(K * NN * 4), u64::from((K + 1) * NN * 4))
        );
        rma.free(win).unwrap();
    });
}

#[test]
fn indexed_types_move_a_triangle_and_a_diagonal() {
    const N: u32 = 6;
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let e = Datatype::<u32>::element();
        // The upper triangle of an NxN matrix, row by row.
        let upper: Vec<Block> = (0..N)
            .map(|i| Block::new(N - i, i64::from(i * N + i)))
            .collect();
        let triangle = Datatype::indexed(&upper, &e).unwrap().commit().unwrap();
        let bytes: Vec<Block> = upper
            .iter()
            .map(|b| Block::new(b.len, b.disp * 4))
            .collect();
        assert_eq!(
            Datatype::hindexed(&bytes, &e).unwrap().commit().unwrap(),
            triangle
        );
        let count = N * (N + 1) / 2;
        assert_eq!(triangle.shape().size, u64::from(count));
        let one = e.commit().unwrap();
        let win = rma.allocate::<u32>(N * N, WindowOptions::new()).unwrap();
        let mine: Vec<u32> = (0..count).map(|k| value(me, k)).collect();

        rma.fence(win, Assert::NONE).unwrap();
        rma.put_typed(win, other, 0, &mine, one.times(count), triangle.times(1))
            .unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let mut got = vec![0; (N * N) as usize];
        rma.local_read(win, 0, &mut got).unwrap();
        let mut want = vec![0; (N * N) as usize];
        let mut k = 0;
        for i in 0..N {
            for j in i..N {
                want[(i * N + j) as usize] = value(other, k);
                k += 1;
            }
        }
        assert_eq!(got, want);

        // The diagonal, as blocks of one (indexed_block), in reverse.
        let corners: Vec<i64> = (0..N).rev().map(|i| i64::from(i * (N + 1))).collect();
        let diagonal = Datatype::indexed_block(1, &corners, &e).unwrap();
        let diagonal = diagonal.commit().unwrap();
        let mut diag = vec![0; N as usize];
        rma.get_typed(win, other, 0, &mut diag, one.times(N), diagonal.times(1))
            .unwrap();
        let starts: Vec<u32> = (0..N)
            .map(|i| i * N - i * (i.saturating_sub(1)) / 2)
            .collect();
        for (d, &got) in diag.iter().enumerate() {
            let i = N - 1 - d as u32;
            assert_eq!(got, value(me, starts[i as usize]), "diagonal {i}");
        }
        // The triangle at both sides: straight into a local matrix.
        let mut local = vec![0; (N * N) as usize];
        rma.get_typed(
            win,
            other,
            0,
            &mut local,
            triangle.times(1),
            triangle.times(1),
        )
        .unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let mut expected = vec![0; (N * N) as usize];
        let mut k = 0;
        for i in 0..N {
            for j in i..N {
                expected[(i * N + j) as usize] = value(me, k);
                k += 1;
            }
        }
        assert_eq!(local, expected);
        rma.free(win).unwrap();
    });
}

#[test]
fn a_halo_exchange_with_subarrays_on_a_periodic_grid() {
    // Each rank of a 2x2 periodic grid holds R x C cells inside a halo of
    // one cell; the window is the whole (R+2) x (C+2) array.
    const R: u32 = 3;
    const C: u32 = 4;
    const ROWS: u32 = R + 2;
    const COLS: u32 = C + 2;
    Mock::run(4, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let rank = |pr: u32, pc: u32| (pr % 2) * 2 + pc % 2;
        let (pr, pc) = (me / 2, me % 2);
        let (up, down) = (rank(pr + 1, pc), rank(pr + 1, pc));
        let (left, right) = (rank(pr, pc + 1), rank(pr, pc + 1));
        let e = Datatype::<u32>::element();
        let part = |sub: [u32; 2], start: [u32; 2]| {
            Datatype::subarray(&[ROWS, COLS], &sub, &start, &e)
                .unwrap()
                .commit()
                .unwrap()
        };
        let (first_row, last_row) = (part([1, C], [1, 1]), part([1, C], [R, 1]));
        let (top_halo, bottom_halo) = (part([1, C], [0, 1]), part([1, C], [R + 1, 1]));
        let (first_col, last_col) = (part([R, 1], [1, 1]), part([R, 1], [1, C]));
        let (left_halo, right_halo) = (part([R, 1], [1, 0]), part([R, 1], [1, C + 1]));
        assert_eq!(first_col.runs().len(), R as usize);

        let inside = |r: u32, c: u32| (1..=R).contains(&r) && (1..=C).contains(&c);
        let cells: Vec<u32> = (0..ROWS * COLS)
            .map(|k| {
                let (r, c) = (k / COLS, k % COLS);
                if inside(r, c) { value(me, k) } else { 0 }
            })
            .collect();
        let win = rma
            .allocate::<u32>(ROWS * COLS, WindowOptions::new())
            .unwrap();
        rma.local_write(win, 0, &cells).unwrap();

        rma.fence(win, Assert::NONE).unwrap();
        for (to, edge, halo) in [
            (up, &first_row, &bottom_halo),
            (down, &last_row, &top_halo),
            (left, &first_col, &right_halo),
            (right, &last_col, &left_halo),
        ] {
            rma.put_typed(win, to, 0, &cells, edge.times(1), halo.times(1))
                .unwrap();
        }
        rma.fence(win, Assert::NONE).unwrap();
        let mut got = vec![0; (ROWS * COLS) as usize];
        rma.local_read(win, 0, &mut got).unwrap();
        for r in 0..ROWS {
            for c in 0..COLS {
                let k = r * COLS + c;
                let want = match (r, c) {
                    _ if inside(r, c) => value(me, k),
                    (0, 1..=C) => value(up, R * COLS + c),
                    (r, 1..=C) if r == R + 1 => value(down, COLS + c),
                    (1..=R, 0) => value(left, r * COLS + C),
                    (1..=R, c) if c == C + 1 => value(right, r * COLS + 1),
                    _ => 0,
                };
                assert_eq!(got[k as usize], want, "rank {me} row {r} column {c}");
            }
        }

        // The same halos fetched: each from the neighbour's edge.
        let mut fetched = vec![0; (ROWS * COLS) as usize];
        for (from, edge, halo) in [
            (up, &last_row, &top_halo),
            (down, &first_row, &bottom_halo),
            (left, &last_col, &left_halo),
            (right, &first_col, &right_halo),
        ] {
            rma.get_typed(win, from, 0, &mut fetched, halo.times(1), edge.times(1))
                .unwrap();
        }
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        for k in 0..ROWS * COLS {
            let (r, c) = (k / COLS, k % COLS);
            let want = if inside(r, c) { 0 } else { got[k as usize] };
            assert_eq!(fetched[k as usize], want, "fetched row {r} column {c}");
        }
        rma.free(win).unwrap();
    });
}

#[test]
fn struct_blocks_pack_and_unpack_records() {
    const RECORDS: u32 = 4;
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let e = Datatype::<f64>::element();
        // A particle: position (3) at byte 0, velocity (3) at byte 32, mass
        // at byte 64: 9 elements, two of them gaps.
        let particle = Datatype::structure(&[
            StructBlock::new(3, 0, &e),
            StructBlock::new(3, 32, &e),
            StructBlock::new(1, 64, &e),
        ])
        .unwrap()
        .commit()
        .unwrap();
        assert_eq!(
            particle.runs(),
            [
                Run { start: 0, len: 3 },
                Run { start: 4, len: 3 },
                Run { start: 8, len: 1 }
            ]
        );
        assert_eq!((particle.shape().size, particle.shape().extent), (7, 9));
        let one = e.commit().unwrap();
        let picked = |k: u32| k % 9 != 3 && k % 9 != 7;
        let records: Vec<f64> = (0..9 * RECORDS)
            .map(|k| {
                if picked(k) {
                    f64::from(me * 1000 + k)
                } else {
                    -1.0
                }
            })
            .collect();
        let win = rma.allocate::<f64>(32, WindowOptions::new()).unwrap();

        rma.fence(win, Assert::NONE).unwrap();
        rma.put_typed(
            win,
            other,
            0,
            &records,
            particle.times(RECORDS),
            one.times(7 * RECORDS),
        )
        .unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let mut packed = vec![0.0; 32];
        rma.local_read(win, 0, &mut packed).unwrap();
        let sent: Vec<f64> = (0..9 * RECORDS)
            .filter(|&k| picked(k))
            .map(|k| f64::from(other * 1000 + k))
            .collect();
        assert_eq!(packed[..28], sent[..]);
        assert_eq!(packed[28..], [0.0; 4]);

        // Unpacked back into records whose gaps stay as they were.
        rma.fence(win, Assert::NONE).unwrap();
        let mut unpacked = vec![-1.0; (9 * RECORDS) as usize];
        rma.get_typed(
            win,
            other,
            0,
            &mut unpacked,
            particle.times(RECORDS),
            one.times(7 * RECORDS),
        )
        .unwrap();
        assert_eq!(unpacked, records);

        // Blocks of nested types, one below the start: a pair of
        // elements two apart, twice, then one element 2 before the start.
        let pair = Datatype::vector(2, 1, 2, &e).unwrap();
        let mixed =
            Datatype::structure(&[StructBlock::new(2, 0, &pair), StructBlock::new(1, -16, &e)])
                .unwrap()
                .commit()
                .unwrap();
        assert_eq!((mixed.shape().lb, mixed.shape().true_lb), (-2, -2));
        rma.fence(win, Assert::NONE).unwrap();
        // Displacement 2 brings its lowest place to element 0.
        rma.put_typed(
            win,
            other,
            2,
            &[1.5, 2.5, 3.5, 4.5, 5.5],
            one.times(5),
            mixed.times(1),
        )
        .unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let mut got = vec![0.0; 8];
        rma.local_read(win, 0, &mut got).unwrap();
        assert_eq!(got[0], 5.5);
        assert_eq!([got[2], got[4], got[5], got[7]], [1.5, 2.5, 3.5, 4.5]);
        assert_eq!([got[1], got[3], got[6]], [sent[1], sent[3], sent[6]]);
        rma.free(win).unwrap();
    });
}

#[test]
fn accumulates_sum_through_nested_types_from_every_rank() {
    Mock::run(4, |hal| {
        let mut rma = rma(hal);
        let (me, p) = (rma.rank(), rma.size());
        let e = Datatype::<i64>::element();
        // The middle 2x2 of each of 3 tiles of 4x4.
        let middle = Datatype::subarray(&[4, 4], &[2, 2], &[1, 1], &e).unwrap();
        let tiles = Datatype::contiguous(3, &middle).unwrap().commit().unwrap();
        assert_eq!((tiles.shape().size, tiles.shape().extent), (12, 48));
        // One origin element three times (an origin may pick an element
        // twice: it is only read) onto each tile's corner.
        let thrice = Datatype::vector(3, 1, 0, &e).unwrap().commit().unwrap();
        assert!(thrice.overlapping());
        let corners = Datatype::indexed_block(1, &[0, 16, 32], &e)
            .unwrap()
            .commit()
            .unwrap();
        let one = e.commit().unwrap();
        let win = rma.allocate::<i64>(48, WindowOptions::new()).unwrap();
        let data: Vec<i64> = (0..12).map(|k| i64::from(me + 1) * (k + 1)).collect();

        rma.fence(win, Assert::NONE).unwrap();
        for target in 0..p {
            rma.accumulate_typed(
                win,
                target,
                0,
                &data,
                one.times(12),
                tiles.times(1),
                AccumulateOp::Sum,
            )
            .unwrap();
            rma.accumulate_typed(
                win,
                target,
                0,
                &[-i64::from(me + 1)],
                thrice.times(1),
                corners.times(1),
                AccumulateOp::Sum,
            )
            .unwrap();
        }
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let ranks = i64::from(p * (p + 1) / 2);
        let mut got = vec![0i64; 48];
        rma.local_read(win, 0, &mut got).unwrap();
        let mut picked = 0;
        for (k, &v) in got.iter().enumerate() {
            let (tile, r, c) = (k / 16, k % 16 / 4, k % 4);
            let want = if (1..=2).contains(&r) && (1..=2).contains(&c) {
                picked += 1;
                let index = (tile * 4 + (r - 1) * 2 + (c - 1)) as i64;
                ranks * (index + 1)
            } else if k % 16 == 0 {
                -ranks
            } else {
                0
            };
            assert_eq!(v, want, "element {k}");
        }
        assert_eq!(picked, 12);
        let s = rma.stats(win).unwrap();
        assert_eq!(s.accumulates, 2 * u64::from(p));
        assert_eq!(s.bytes_accumulated, u64::from(p) * (12 + 3) * 8);
        rma.free(win).unwrap();
    });
}

#[test]
fn get_accumulate_and_the_request_forms_take_nested_types() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let e = Datatype::<u32>::element();
        let one = e.commit().unwrap();
        // A 2x3 block of a 4x8 array, and every other element of a buffer.
        let block = Datatype::subarray(&[4, 8], &[2, 3], &[1, 2], &e).unwrap();
        let block = block.commit().unwrap();
        let places = [10usize, 11, 12, 18, 19, 20];
        let every_other = Datatype::vector(6, 1, 2, &e).unwrap().commit().unwrap();
        let win = rma.allocate::<u32>(32, WindowOptions::new()).unwrap();
        let initial: Vec<u32> = (0..32).map(|k| value(me, k)).collect();
        rma.local_write(win, 0, &initial).unwrap();
        rma.comm().barrier();
        if me == 1 {
            let old: Vec<u32> = places.iter().map(|&k| value(0, k as u32)).collect();
            let data: Vec<u32> = (1..=6).collect();
            rma.lock(win, LockType::Exclusive, 0, Assert::NONE).unwrap();
            let mut result = vec![u32::MAX; 12];
            rma.get_accumulate_typed(
                win,
                0,
                0,
                &data,
                one.times(6),
                &mut result,
                every_other.times(1),
                block.times(1),
                AccumulateOp::Sum,
            )
            .unwrap();
            for (k, &r) in result.iter().enumerate() {
                let want = if k % 2 == 0 { old[k / 2] } else { u32::MAX };
                assert_eq!(r, want, "result {k}");
            }
            // MPI_NO_OP: an atomic get, the origin ignored.
            let mut now = vec![0; 6];
            rma.get_accumulate_typed(
                win,
                0,
                0,
                &[],
                one.times(0),
                &mut now,
                one.times(6),
                block.times(1),
                AccumulateOp::NoOp,
            )
            .unwrap();
            let summed: Vec<u32> = old
                .iter()
                .zip(&data)
                .map(|(o, d)| o.wrapping_add(*d))
                .collect();
            assert_eq!(now, summed);

            // The request forms.
            let r = rma
                .rput_typed(win, 0, 0, &result, every_other.times(1), block.times(1))
                .unwrap();
            rma.wait_request(win, r).unwrap();
            let mut back = vec![0; 6];
            let r = rma
                .rget_typed(win, 0, 0, &mut back, one.times(6), block.times(1))
                .unwrap();
            assert!(rma.test_request(win, r).unwrap());
            assert_eq!(back, old);
            let r = rma
                .raccumulate_typed(
                    win,
                    0,
                    0,
                    &[7],
                    Datatype::vector(6, 1, 0, &e)
                        .unwrap()
                        .commit()
                        .unwrap()
                        .times(1),
                    block.times(1),
                    AccumulateOp::Sum,
                )
                .unwrap();
            rma.wait_request(win, r).unwrap();
            let mut last = vec![0; 12];
            let r = rma
                .rget_accumulate_typed(
                    win,
                    0,
                    0,
                    &data,
                    one.times(6),
                    &mut last,
                    every_other.times(1),
                    block.times(1),
                    AccumulateOp::Replace,
                )
                .unwrap();
            rma.wait_request(win, r).unwrap();
            let plus_seven: Vec<u32> = old.iter().map(|o| o.wrapping_add(7)).collect();
            let evens: Vec<u32> = last.iter().step_by(2).copied().collect();
            assert_eq!(evens, plus_seven);
            rma.unlock(win, 0).unwrap();
            let s = rma.stats(win).unwrap();
            assert_eq!((s.accumulates, s.requests), (4, 4));
        }
        rma.comm().barrier();
        if me == 0 {
            let mut got = vec![0; 32];
            rma.local_read(win, 0, &mut got).unwrap();
            let mut want = initial.clone();
            for (&k, d) in places.iter().zip(1..) {
                want[k] = d;
            }
            assert_eq!(got, want);
        }
        rma.comm().barrier();
        rma.free(win).unwrap();
    });
}

#[test]
fn vector_calls_and_typed_calls_move_the_same_elements() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let e = Datatype::<u16>::element();
        let win = rma.allocate::<u16>(64, WindowOptions::new()).unwrap();
        let data: Vec<u16> = (0..8).map(|i| (me as u16 + 1) * 100 + i).collect();
        let strided = Datatype::vector(4, 2, 8, &e).unwrap().commit().unwrap();
        let one = e.commit().unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        rma.put_vector(
            win,
            other,
            1,
            &data,
            Vector::contiguous(8),
            Vector::new(4, 2, 8),
        )
        .unwrap();
        rma.put_typed(win, other, 33, &data, one.times(8), strided.times(1))
            .unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let mut got = [0u16; 64];
        rma.local_read(win, 0, &mut got).unwrap();
        assert_eq!(got[1..32], got[33..64]);
        assert_eq!(
            got[1..3],
            [(other as u16 + 1) * 100, (other as u16 + 1) * 100 + 1]
        );
        rma.free(win).unwrap();
    });
}

/// `e`'s class, checked, and its message.
fn fail(e: RmaError, class: ErrorClass) -> std::string::String {
    assert_eq!(e.class(), class, "{e}");
    e.to_string()
}

#[test]
fn every_misuse_of_typed_operations_is_refused() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let e = Datatype::<u32>::element();
        let one = e.commit().unwrap();
        let twice = Datatype::indexed(&[Block::new(2, 0), Block::new(2, 1)], &e)
            .unwrap()
            .commit()
            .unwrap();
        assert!(twice.overlapping());
        let below = Datatype::hindexed(&[Block::new(2, -8)], &e)
            .unwrap()
            .commit()
            .unwrap();
        let win = rma.allocate::<u32>(8, WindowOptions::new()).unwrap();
        let floats = rma.allocate::<f32>(8, WindowOptions::new()).unwrap();
        let f = Datatype::<f32>::element().commit().unwrap();

        // Outside an epoch.
        assert_eq!(
            fail(
                rma.put_typed(win, other, 0, &[1], one.times(1), one.times(1))
                    .unwrap_err(),
                ErrorClass::RmaSync
            ),
            "MPI_ERR_RMA_SYNC: put on window 0: no access epoch is open (call fence or start)"
        );
        fail(
            rma.rget_typed(win, other, 0, &mut [0], one.times(1), one.times(1))
                .unwrap_err(),
            ErrorClass::RmaSync,
        );

        rma.fence(win, Assert::NONE).unwrap();
        rma.fence(floats, Assert::NONE).unwrap();
        // Sizes that differ.
        assert_eq!(
            fail(
                rma.put_typed(win, other, 0, &[1; 4], one.times(3), one.times(4))
                    .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: target layout elements (as the origin layout picks) has length 4, expected 3"
        );
        fail(
            rma.accumulate_typed(
                win,
                other,
                0,
                &[1; 4],
                one.times(4),
                twice.times(0),
                AccumulateOp::Sum,
            )
            .unwrap_err(),
            ErrorClass::Arg,
        );
        assert_eq!(
            fail(
                rma.get_accumulate_typed(
                    win,
                    other,
                    0,
                    &[1; 3],
                    one.times(3),
                    &mut [0; 4],
                    one.times(2),
                    one.times(3),
                    AccumulateOp::Sum
                )
                .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: result layout elements (as the target layout picks) has length 2, expected 3"
        );
        // Overlapping places where the call writes; reading them is fine.
        assert_eq!(
            fail(
                rma.put_typed(win, other, 0, &[1; 4], one.times(4), twice.times(1))
                    .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: put target layout: places overlap (some element picked twice)"
        );
        assert_eq!(
            fail(
                rma.get_typed(win, other, 0, &mut [0; 4], twice.times(1), one.times(4))
                    .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: get origin layout: places overlap (some element picked twice)"
        );
        assert_eq!(
            fail(
                rma.accumulate_typed(
                    win,
                    other,
                    0,
                    &[1; 4],
                    one.times(4),
                    twice.times(1),
                    AccumulateOp::Sum
                )
                .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: accumulate target layout: places overlap (some element picked twice)"
        );
        assert_eq!(
            fail(
                rma.get_accumulate_typed(
                    win,
                    other,
                    0,
                    &[1; 4],
                    one.times(4),
                    &mut [0; 4],
                    twice.times(1),
                    one.times(4),
                    AccumulateOp::Sum
                )
                .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: get_accumulate result layout: places overlap (some element picked twice)"
        );
        // Copies that interleave without overlapping are fine, and so is
        // an origin that picks one element for every place.
        let wide = Datatype::vector(2, 1, 2, &e).unwrap();
        let shifted = Datatype::hvector(2, 1, 4, &wide).unwrap().commit().unwrap();
        assert!(!shifted.overlapping());
        assert_eq!(shifted.runs().len(), 4);
        rma.put_typed(win, other, 0, &[1; 4], one.times(4), shifted.times(1))
            .unwrap();
        let broadcast = Datatype::vector(4, 1, 0, &e).unwrap().commit().unwrap();
        rma.put_typed(win, other, 4, &[me + 1], broadcast.times(1), one.times(4))
            .unwrap();
        // Outside the target's window: past its end, and below its start.
        assert_eq!(
            fail(
                rma.put_typed(win, other, 6, &[1; 3], one.times(3), one.times(3))
                    .unwrap_err(),
                ErrorClass::RmaRange
            ),
            std::format!(
                "MPI_ERR_RMA_RANGE: put on window 0: bytes 24..36 of rank {other}'s window of 32 bytes"
            )
        );
        assert_eq!(
            fail(
                rma.get_typed(win, other, 1, &mut [0; 2], one.times(2), below.times(1))
                    .unwrap_err(),
                ErrorClass::RmaRange
            ),
            std::format!(
                "MPI_ERR_RMA_RANGE: get on window 0: bytes -4..4 of rank {other}'s window of 32 bytes"
            )
        );
        fail(
            rma.accumulate_typed(
                win,
                other,
                0,
                &[1, 2],
                one.times(2),
                below.times(1),
                AccumulateOp::Sum,
            )
            .unwrap_err(),
            ErrorClass::RmaRange,
        );
        // The origin buffer: past its end, below its start.
        assert_eq!(
            fail(
                rma.put_typed(win, other, 0, &[1; 3], shifted.times(1), one.times(4))
                    .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: origin buffer elements (as the origin layout spans) has length 3, expected 4"
        );
        assert_eq!(
            fail(
                rma.put_typed(win, other, 0, &[1; 3], below.times(1), one.times(2))
                    .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: put origin layout: reaches below the buffer's first element (a negative lower bound)"
        );
        assert_eq!(
            fail(
                rma.get_accumulate_typed(
                    win,
                    other,
                    0,
                    &[1; 2],
                    one.times(2),
                    &mut [0; 2],
                    shifted.times(1),
                    twice.times(0),
                    AccumulateOp::Sum
                )
                .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: result layout elements (as the target layout picks) has length 4, expected 0"
        );
        assert_eq!(
            fail(
                rma.get_accumulate_typed(
                    win,
                    other,
                    0,
                    &[1; 4],
                    one.times(4),
                    &mut [0; 3],
                    shifted.times(1),
                    one.times(4),
                    AccumulateOp::Sum
                )
                .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: result buffer elements (as the result layout spans) has length 3, expected 4"
        );
        // Operations as the contiguous calls refuse them.
        fail(
            rma.accumulate_typed(
                floats,
                other,
                0,
                &[1.0],
                f.times(1),
                f.times(1),
                AccumulateOp::Band,
            )
            .unwrap_err(),
            ErrorClass::Op,
        );
        fail(
            rma.accumulate_typed(
                win,
                other,
                0,
                &[1],
                one.times(1),
                one.times(1),
                AccumulateOp::NoOp,
            )
            .unwrap_err(),
            ErrorClass::Op,
        );
        // Nothing at all is allowed, and moves nothing.
        rma.put_typed(win, other, 8, &[], one.times(0), twice.times(0))
            .unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        rma.fence(floats, Assert::NOSUCCEED).unwrap();
        let mut got = [0; 8];
        rma.local_read(win, 0, &mut got).unwrap();
        assert_eq!(
            got,
            [1, 1, 1, 1, other + 1, other + 1, other + 1, other + 1]
        );
        // A get may read a place twice.
        let mut pair = [0; 4];
        rma.get_typed(win, other, 3, &mut pair, one.times(4), twice.times(1))
            .unwrap();
        assert_eq!(pair, [1, me + 1, me + 1, me + 1]);

        // Request forms outside a passive-target epoch.
        assert_eq!(
            fail(
                rma.rput_typed(win, other, 0, &[1], one.times(1), one.times(1))
                    .unwrap_err(),
                ErrorClass::RmaSync
            ),
            "MPI_ERR_RMA_SYNC: rput on window 0: no passive-target epoch is open (call lock or lock_all first)"
        );
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        rma.free(floats).unwrap();
        rma.free(win).unwrap();
    });
}
