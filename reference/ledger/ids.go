package ledger

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
	PrefixApplication  = "AP"
	PrefixAuthz        = "AU"
	PrefixTransfer     = "TR"
	PrefixCard         = "PI"
	PrefixMerchant     = "MU"
	PrefixIdentity     = "ID"
	PrefixDispute      = "DI"
	PrefixEvidence     = "DF"
	PrefixWebhook      = "WH"
	PrefixUser         = "US"
	PrefixProfile      = "MP"
	PrefixVerification = "VI"
	PrefixFeeProfile   = "FP"
	PrefixSchedule     = "SUBSCHEDULE_"
	PrefixAmount       = "SUBAMOUNT_"
	PrefixEnrollment   = "SUBENROLLMENT_"
	PrefixBalance      = "BT_"
	PrefixFile         = "FILE_"
	PrefixLink         = "EL_"
	PrefixEvent        = "EV"
)

// RandomID is the default Config.NewID: the prefix and 22 random base62 characters.
func RandomID(prefix string) string {
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

// SeededSource produces deterministic ids and secrets for the seed fixtures.
type SeededSource struct {
	Rng *mrand.Rand
}

// NewSeededSource is the source of seed: the same seed, the same ids and
// secrets.
func NewSeededSource(seed int64) *SeededSource {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], uint64(seed))
	copy(key[8:], "conform reference fixtures")
	return &SeededSource{Rng: mrand.New(mrand.NewChaCha8(key))}
}

// ID is a fresh id with the prefix.
func (s *SeededSource) ID(prefix string) string {
	return prefix + s.Token(idLength)
}

// Token is n random base62 characters.
func (s *SeededSource) Token(n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = base62[s.Rng.IntN(len(base62))]
	}
	return string(out)
}

// Hex is n random bytes in hexadecimal.
func (s *SeededSource) Hex(n int) string {
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = byte(s.Rng.Uint32())
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

// NewSecret returns n random bytes as lower-case hex (webhook signing keys).
func NewSecret(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
}
