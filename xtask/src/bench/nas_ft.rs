// SPDX-License-Identifier: MIT OR Apache-2.0
//! NAS FT (`apps/nas-ft/ft.c`, a C program over MPI): MFLOPS and the time
//! split per class, variant and process count, as the thesis reports FT.

use super::svg::Scale;
use super::{Experiment, Kind, Measure, Plot, Run, View};

/// The runs of one variant: classes S (4 and 32 processes) and W (32),
/// and with `--quick` class T on 4 processes (S's run carries it).
macro_rules! ft_runs {
    ($variant:literal) => {
        [
            Run {
                program: "nas-ft",
                memory_mib: None,
                cores: &[4, 32],
                quick_cores: &[4],
                params: &[("args", concat!("S,", $variant))],
                quick_params: &[("args", concat!("T,", $variant))],
            },
            Run {
                program: "nas-ft",
                memory_mib: None,
                cores: &[32],
                quick_cores: &[],
                params: &[("args", concat!("W,", $variant))],
                quick_params: &[],
            },
        ]
    };
}

const TWO_SIDED: [Run; 2] = ft_runs!("two-sided");
const PSCW_MPBT_WT: [Run; 2] = ft_runs!("pscw-mpbt-wt");
// A DCM window may leave stale lines in L2 (the thesis's finding), so its
// checksums may be wrong: `keep-going` reports them (verified=no) and the
// run still counts.
const PSCW_DCM: [Run; 2] = ft_runs!("pscw-dcm,keep-going");
const PSCW_MESSAGES: [Run; 2] = ft_runs!("pscw-messages");

/// Every run, variant by variant.
const RUNS: [Run; 8] = [
    TWO_SIDED[0],
    TWO_SIDED[1],
    PSCW_MPBT_WT[0],
    PSCW_MPBT_WT[1],
    PSCW_DCM[0],
    PSCW_DCM[1],
    PSCW_MESSAGES[0],
    PSCW_MESSAGES[1],
];

/// NAS FT per class and variant.
pub const NAS_FT: Experiment = Experiment {
    name: "nas-ft",
    title: "NAS FT (3D FFT) over MPI",
    about: "NAS FT in C over MPI (apps/nas-ft/ft.c, docs/nas-ft.md): classes S (64x64x64) on 4 \
            and 32 processes and W (128x128x32) on 32, 6 iterations (with --quick the 32x32x32 \
            class T on 4), two-sided (MPI_Isend/MPI_Irecv), SCOSCo puts in PSCW epochs on \
            MPBT-WT windows, the same on DCM windows, and on message-based windows (the target \
            applies each put from a message), each transpose plane by plane. \
            part=total is the slowest rank's time from the initial condition to the last \
            checksum, its rate MFLOPS by NPB's operation count; part=computation, communication \
            and synchronisation are summed over the ranks. verified says whether the checksums \
            matched NPB's (class T: a serial run's); a DCM run may not.",
    kind: Kind::Lines {
        runs: &RUNS,
        view: View {
            x: "cores",
            table: Measure::Latency,
            x_label: "processes",
            x_scale: Scale::Linear,
            plots: &[Plot {
                suffix: "",
                measure: Measure::Rate,
                y_scale: Scale::Linear,
                only: &[("part", "total")],
            }],
        },
    },
};
