/* Chunk compression: zstd frames or LZ4 frames (the MCAP compression names "zstd" and "lz4"),
 * through Debian's libzstd and liblz4. */
#include <lz4frame.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "bag.h"

bool bag_compression_known(const char *name)
{
	return !strcmp(name, "zstd") || !strcmp(name, "lz4") || !strcmp(name, "");
}

bool bag_compress(const char *name, int level, const uint8_t *p, size_t n, struct bag_buf *out)
{
	out->len = 0;
	if (!strcmp(name, "zstd")) {
		size_t bound = ZSTD_compressBound(n);
		uint8_t *d = bag_buf_grow(out, bound);
		if (!d)
			return false;
		size_t r = ZSTD_compress(d, bound, p, n, level ? level : 1);
		if (ZSTD_isError(r))
			return false;
		out->len = r;
		return true;
	}
	if (!strcmp(name, "lz4")) {
		LZ4F_preferences_t prefs;
		memset(&prefs, 0, sizeof prefs);
		prefs.compressionLevel = level;
		prefs.frameInfo.contentSize = n;
		size_t bound = LZ4F_compressFrameBound(n, &prefs);
		uint8_t *d = bag_buf_grow(out, bound);
		if (!d)
			return false;
		size_t r = LZ4F_compressFrame(d, bound, p, n, &prefs);
		if (LZ4F_isError(r))
			return false;
		out->len = r;
		return true;
	}
	bag_put(out, p, n);
	return !out->failed;
}

static bool lz4_decompress(const uint8_t *p, size_t n, uint8_t *out, size_t want, const char **why)
{
	LZ4F_dctx *dc;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION))) {
		*why = "out of memory";
		return false;
	}
	size_t done = 0, used = 0;
	bool ok = true;
	while (ok) {
		size_t dst = want - done, src = n - used;
		size_t r = LZ4F_decompress(dc, out + done, &dst, p + used, &src, NULL);
		if (LZ4F_isError(r)) {
			*why = LZ4F_getErrorName(r);
			ok = false;
			break;
		}
		done += dst;
		used += src;
		if (r == 0)
			break; /* frame complete */
		if (src == 0 && dst == 0) {
			*why = done == want ? "more data than the chunk's uncompressed size"
					    : "lz4 frame ends early";
			ok = false;
		}
	}
	LZ4F_freeDecompressionContext(dc);
	if (ok && (done != want || used != n)) {
		*why = "lz4 frame does not hold the chunk's uncompressed size";
		ok = false;
	}
	return ok;
}

bool bag_decompress(const char *name, const uint8_t *p, size_t n, uint8_t *out, size_t want,
		    const char **why)
{
	if (!strcmp(name, "zstd")) {
		unsigned long long size = ZSTD_getFrameContentSize(p, n);
		if (size != ZSTD_CONTENTSIZE_UNKNOWN && size != want) {
			*why = "zstd frame size differs from the chunk's uncompressed size";
			return false;
		}
		size_t r = ZSTD_decompress(out, want, p, n);
		if (ZSTD_isError(r)) {
			*why = ZSTD_getErrorName(r);
			return false;
		}
		if (r != want) {
			*why = "zstd data shorter than the chunk's uncompressed size";
			return false;
		}
		return true;
	}
	if (!strcmp(name, "lz4"))
		return lz4_decompress(p, n, out, want, why);
	if (!strcmp(name, "")) {
		if (n != want) {
			*why = "uncompressed chunk size differs from its records";
			return false;
		}
		memcpy(out, p, n);
		return true;
	}
	*why = "unknown compression";
	return false;
}
