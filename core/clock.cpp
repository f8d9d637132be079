// SPDX-License-Identifier: MIT
#include "clock.h"

#include <chrono>

namespace lq::core {

TimeNs systemNowNs() {
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

Clock systemClock() {
    return &systemNowNs;
}

Clock fixedClock(TimeNs t) {
    return [t] { return t; };
}

} // namespace lq::core
