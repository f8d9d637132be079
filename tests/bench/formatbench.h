// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace lq::bench {

struct FormatOptions {
    std::string self;    ///< this lqbench, for the gui-launch children
    std::string fixture; ///< a small file of the format: the 30-row launch, and the seed
    long rows = 1000000; ///< jobs added to the copy that is measured
    int launches = 3;
    int changes = 15;
    std::string dir = ".";
    double checkFactor = 0; ///< > 0: fail when a figure is over factor x its target
    bool keep = false;      ///< keep the generated files
};

/// `lqbench formats --fixture F [--rows N]`: launch -> first rows painted on
/// the fixture and on a copy grown by N jobs, alternating; another process's
/// change -> repainted row; peak memory. Prints one JSON line.
int runFormats(const FormatOptions& o);

} // namespace lq::bench
