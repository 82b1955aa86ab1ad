// SPDX-License-Identifier: MIT OR Apache-2.0
module merkle.local/go

go 1.19
