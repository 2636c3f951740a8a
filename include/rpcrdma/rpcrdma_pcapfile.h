/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Capture files: a reader for classic pcap and pcapng, and a classic pcap
 * writer.
 *
 * The reader takes classic pcap in both byte orders with microsecond or
 * nanosecond timestamps, and pcapng (draft-ietf-opsawg-pcapng) sections in
 * either byte order: Section Header, Interface Description (with
 * if_tsresol), Enhanced Packet and Simple Packet blocks; other blocks are
 * skipped. It reads what DPDK's rte_pcapng and Wireshark write. Files are
 * untrusted: every length is checked before it is used, no record or block
 * may exceed RPCRDMA_PCAPFILE_BLOCK_MAX, and every error has a number and
 * a message that says where the file went wrong.
 *
 * The writer produces classic pcap, in host or swapped byte order, with
 * microsecond or nanosecond timestamps; tests use it to make captures.
 *
 * A reader or writer object must not be used by two threads at once.
 */
#ifndef RPCRDMA_PCAPFILE_H
#define RPCRDMA_PCAPFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rpcrdma/rpcrdma_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest record (pcap) or block (pcapng) the reader accepts: 16 MiB. */
#define RPCRDMA_PCAPFILE_BLOCK_MAX (16u << 20)

/** LINKTYPE_ETHERNET. */
#define RPCRDMA_PCAPFILE_LINKTYPE_ETHERNET 1

/** Magic numbers of the formats. */
#define RPCRDMA_PCAPFILE_MAGIC_USEC   0xa1b2c3d4u /**< classic pcap, microseconds */
#define RPCRDMA_PCAPFILE_MAGIC_NSEC   0xa1b23c4du /**< classic pcap, nanoseconds */
#define RPCRDMA_PCAPFILE_PCAPNG_SHB   0x0a0d0d0au /**< pcapng Section Header Block type */
#define RPCRDMA_PCAPFILE_PCAPNG_MAGIC 0x1a2b3c4du /**< pcapng byte-order magic */

/** The format of an open file. */
enum rpcrdma_pcapfile_format {
	RPCRDMA_PCAPFILE_PCAP = 1,   /**< classic pcap */
	RPCRDMA_PCAPFILE_PCAPNG = 2, /**< pcapng */
};

/** A packet read from a capture. */
struct rpcrdma_pcapfile_pkt {
	const uint8_t *data; /**< caplen bytes, valid until the next read or close */
	uint32_t caplen;     /**< bytes captured */
	uint32_t origlen;    /**< bytes on the wire */
	uint64_t ts_ns;	     /**< timestamp, nanoseconds since the epoch */
	uint32_t linktype;   /**< LINKTYPE_* of the packet's interface */
	uint32_t ifindex;    /**< pcapng interface number in its section; 0 in pcap */
};

/** An open capture file being read (opaque). */
struct rpcrdma_pcapfile;

/**
 * Open a capture file for reading and read its file header (pcap) or
 * first Section Header Block (pcapng).
 *
 * @param out
 *   Set to the reader on success; NULL on error.
 * @param path
 *   File name.
 * @param errbuf, errlen
 *   On error, a message that names the problem (may be NULL, 0).
 * @return
 *   0, or:
 *   - -errno from fopen(), -ENOMEM.
 *   - -RPCRDMA_E_PCAP_FORMAT: neither pcap nor pcapng, or an unknown major
 *     version.
 *   - -RPCRDMA_E_PCAP_TRUNC, -RPCRDMA_E_PCAP_BLOCK, -RPCRDMA_E_PCAP_TOO_BIG:
 *     the header is cut short, malformed or too long.
 */
int rpcrdma_pcapfile_open(struct rpcrdma_pcapfile **out, const char *path, char *errbuf,
			  size_t errlen);

/**
 * As rpcrdma_pcapfile_open(), on a stream open for reading (stdin, a pipe,
 * fmemopen()). The stream is read sequentially and never seeked; it is not
 * closed by rpcrdma_pcapfile_close().
 */
int rpcrdma_pcapfile_open_stream(struct rpcrdma_pcapfile **out, FILE *f, char *errbuf,
				 size_t errlen);

/**
 * Read the next packet.
 *
 * @param pf
 *   The reader.
 * @param pkt
 *   Output; pkt->data points into the reader's buffer.
 * @return
 *   1 with a packet, 0 at the end of the file, or a negative error after
 *   which the reader only returns that error again:
 *   - -RPCRDMA_E_PCAP_TRUNC: the file ends inside a record or block.
 *   - -RPCRDMA_E_PCAP_BLOCK: a malformed record or block (a length that is
 *     not a multiple of 4 or disagrees with its trailer, a captured length
 *     larger than the block, a packet before any interface or for an
 *     interface not described, an option that runs past its block).
 *   - -RPCRDMA_E_PCAP_TOO_BIG: a record or block over
 *     RPCRDMA_PCAPFILE_BLOCK_MAX.
 *   - -RPCRDMA_E_PCAP_FORMAT: a new section of an unknown major version.
 *   - -EIO: a read error; -ENOMEM.
 *   rpcrdma_pcapfile_errmsg() then tells where.
 */
int rpcrdma_pcapfile_next(struct rpcrdma_pcapfile *pf, struct rpcrdma_pcapfile_pkt *pkt);

/** The format of an open reader. */
enum rpcrdma_pcapfile_format rpcrdma_pcapfile_format(const struct rpcrdma_pcapfile *pf);

/**
 * A message about the last error of a reader, naming the packet or block
 * and the byte offset; "" when there was none.
 */
const char *rpcrdma_pcapfile_errmsg(const struct rpcrdma_pcapfile *pf);

/** Close a reader (NULL is allowed). */
void rpcrdma_pcapfile_close(struct rpcrdma_pcapfile *pf);

/** Writer flags. */
#define RPCRDMA_PCAPFILE_W_NSEC	   (1u << 0) /**< nanosecond timestamps */
#define RPCRDMA_PCAPFILE_W_SWAPPED (1u << 1) /**< the byte order opposite to the host's */

/** A classic pcap file being written (opaque). */
struct rpcrdma_pcapfile_writer;

/**
 * Start a classic pcap file on a stream: writes the file header.
 *
 * @param out
 *   Set to the writer on success.
 * @param f
 *   A stream open for writing; not closed by rpcrdma_pcapfile_writer_close().
 * @param linktype
 *   LINKTYPE_* of every packet.
 * @param snaplen
 *   The snapshot length written in the header.
 * @param flags
 *   RPCRDMA_PCAPFILE_W_* flags.
 * @return
 *   0, or -ENOMEM, or -EIO (write error; nothing to close).
 */
int rpcrdma_pcapfile_writer_open(struct rpcrdma_pcapfile_writer **out, FILE *f, uint32_t linktype,
				 uint32_t snaplen, uint32_t flags);

/**
 * Write one packet record.
 *
 * @param w
 *   The writer.
 * @param data, caplen
 *   The captured bytes.
 * @param origlen
 *   Bytes on the wire (at least caplen; 0 means caplen).
 * @param ts_ns
 *   Timestamp in nanoseconds since the epoch; truncated to microseconds
 *   without RPCRDMA_PCAPFILE_W_NSEC.
 * @return
 *   0, or -EINVAL (caplen over RPCRDMA_PCAPFILE_BLOCK_MAX or origlen below
 *   caplen), or -EIO (write error; the file is then incomplete).
 */
int rpcrdma_pcapfile_write(struct rpcrdma_pcapfile_writer *w, const void *data, uint32_t caplen,
			   uint32_t origlen, uint64_t ts_ns);

/**
 * Flush and free a writer (NULL is allowed).
 *
 * @return
 *   0, or -EIO when the flush failed.
 */
int rpcrdma_pcapfile_writer_close(struct rpcrdma_pcapfile_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_PCAPFILE_H */
