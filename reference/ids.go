package reference

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	mrand "math/rand/v2"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// idLength is the number of base62 characters after an id's prefix: the
// default id_form of schemas/judging.json, [0-9A-Za-z]{22}.
const idLength = 22

// Id prefixes: the id_prefixes table of schemas/judging.json (spec section 2,
// features/README.md, "Requests and resources"), written out as constants for the call sites;
// TestIDPrefixesAreTheTable keeps them equal to the table.
const (
	prefixApplication  = "AP"
	prefixAuthz        = "AU"
	prefixTransfer     = "TR"
	prefixCard         = "PI"
	prefixMerchant     = "MU"
	prefixIdentity     = "ID"
	prefixDispute      = "DI"
	prefixEvidence     = "DF"
	prefixWebhook      = "WH"
	prefixUser         = "US"
	prefixProfile      = "MP"
	prefixVerification = "VI"
	prefixFeeProfile   = "FP"
	prefixSchedule     = "SUBSCHEDULE_"
	prefixAmount       = "SUBAMOUNT_"
	prefixEnrollment   = "SUBENROLLMENT_"
	prefixBalance      = "BT_"
	prefixFile         = "FILE_"
	prefixLink         = "EL_"
	prefixEvent        = "EV"
)

// randomID is the default Config.NewID: the prefix and 22 random base62 characters.
func randomID(prefix string) string {
	var buf [idLength]byte
	_, _ = rand.Read(buf[:]) // never fails on supported platforms
	return prefix + encodeBase62(buf[:])
}

func encodeBase62(raw []byte) string {
	out := make([]byte, len(raw))
	for i, b := range raw {
		out[i] = base62[int(b)%len(base62)]
	}
	return string(out)
}

// seededSource produces deterministic ids and secrets for the seed fixtures.
type seededSource struct {
	rng *mrand.Rand
}

func newSeededSource(seed int64) *seededSource {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], uint64(seed))
	copy(key[8:], "conform reference fixtures")
	return &seededSource{rng: mrand.New(mrand.NewChaCha8(key))}
}

func (s *seededSource) id(prefix string) string {
	return prefix + s.token(idLength)
}

func (s *seededSource) token(n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = base62[s.rng.IntN(len(base62))]
	}
	return string(out)
}

func (s *seededSource) hex(n int) string {
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = byte(s.rng.Uint32())
	}
	return hex.EncodeToString(buf)
}

// newUUID returns a random version 4 UUID (trace ids).
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	hex.Encode(out[9:13], b[4:6])
	hex.Encode(out[14:18], b[6:8])
	hex.Encode(out[19:23], b[8:10])
	hex.Encode(out[24:], b[10:])
	out[8], out[13], out[18], out[23] = '-', '-', '-', '-'
	return string(out[:])
}

// newSecret returns n random bytes as lower-case hex (webhook signing keys).
func newSecret(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
}
