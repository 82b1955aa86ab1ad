/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
** What the addon's source files share: argument readers and error throwers (addon.c) and
** each file's registration function.
*/
#ifndef MERKLE_NODE_ADDON_H
#define MERKLE_NODE_ADDON_H

#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

#include <merkle/merkle.h>

/* Throw for a failed library call (the detail's message when there is one); returns NULL. */
napi_value throw_status(napi_env env, merkle_status s, const merkle_error *e);
/* Throw a TypeError with code ERR_INVALID_ARG_TYPE; returns NULL. */
napi_value throw_type(napi_env env, const char *msg);
/* A TypedArray's or Buffer's bytes; 0 (and a TypeError thrown) when v is not one. */
int get_bytes(napi_env env, napi_value v, const uint8_t **p, size_t *len);
/* An unsigned 32-bit integer; 0 (and a TypeError thrown) otherwise. */
int get_u32(napi_env env, napi_value v, uint32_t *out);
/* A new Buffer holding a copy of src[0..len); NULL (and an Error thrown) on failure. */
napi_value new_buffer(napi_env env, const void *src, size_t len);

/* manifest.c: adds manifestParse, manifestCheck, manifestDirRoot to exports; 0 on failure. */
int merkle_node_manifest_init(napi_env env, napi_value exports);

#endif
