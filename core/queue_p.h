// SPDX-License-Identifier: MIT
#pragma once

// Private to lqcore: shared by queue.cpp, query.cpp and actions.cpp.

#include "queue.h"

#include <string>

namespace lq::core {

// The format's SQL, built once per Queue so hot paths only look up a cached
// prepared statement.
struct Queue::Sql {
    std::string cols;     ///< the 11 uniform columns of readRow()
    std::string tokenCol; ///< claim token expression
    std::string inCol;    ///< arrival time column
    std::string insert;
    std::string byKey;
    std::string byId;
    std::string pop;
    std::string peek;
};

} // namespace lq::core
