// SPDX-License-Identifier: MIT
#pragma once

// What a Symfony Messenger envelope stored by the Doctrine transport says,
// read as text (docs/FORMATS.md#symfony-messenger): the message class, the
// error of its last failure, its retries, the transport it failed on. The
// body is PHP's serialize() output as PhpSerializer::encode() writes it
// (addslashes, base64 when not UTF-8) or, with Symfony's Serializer, JSON
// with the stamps in the headers column. Nothing is ever unserialized: the
// serialize() text is parsed as data, no PHP object is made.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lq::core::messenger {

struct EnvelopeFacts {
    /// How the body is encoded: "php" (PhpSerializer), "php-base64"
    /// (PhpSerializer, base64 because serialize() gave invalid UTF-8),
    /// "json" (Symfony's Serializer: the stamps are in the headers), "" when
    /// it is none of them (then nothing below is set).
    std::string encoding;
    std::optional<std::string> messageClass;
    /// The last ErrorDetailsStamp (Symfony 5.2+), else the last
    /// RedeliveryStamp that carries an exception message (before 5.2).
    std::optional<std::string> errorClass;
    std::optional<std::string> errorMessage;
    /// The FlattenException's traceAsString, when stored.
    std::optional<std::string> errorTrace;
    /// The highest RedeliveryStamp retryCount: the retries made.
    std::optional<std::int64_t> retries;
    /// SentToFailureTransportStamp's originalReceiverName: the transport
    /// (not the queue_name) the message failed on.
    std::optional<std::string> failedOn;

    /// The Error field: "Class: message" and the trace on the next lines.
    std::optional<std::string> errorText() const;
};

/// Reads the envelope of one messenger_messages row.
EnvelopeFacts readEnvelope(std::string_view body, std::string_view headers);

/// PHP's stripslashes(): "\\" -> "\", "\0" -> NUL, "\x" -> "x".
std::string stripSlashes(std::string_view s);

} // namespace lq::core::messenger
