// SPDX-License-Identifier: MIT
// <kvsize/gguf.hpp>: read a GGUF file's header (metadata and tensor table) without its data.
// Standard library only; not part of <kvsize/kvsize.hpp>, whose include stays light.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include "gguf/ggml_ids.hpp"
#include "gguf/gguf_error.hpp"
#include "gguf/gguf_header.hpp"
#include "gguf/gguf_reader.hpp"
#include "gguf/gguf_model.hpp"
#include "gguf/gguf_overrides.hpp"
