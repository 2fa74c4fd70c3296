package attest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// BundleMediaType is the media type of a Sigstore bundle v0.3 in JSON.
const BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Bundle is a Sigstore bundle v0.3 holding a DSSE envelope signed with a
// public key (no certificate, transparency log entry or timestamp: those
// need Fulcio and Rekor, which a key-signed offline bundle leaves out).
type Bundle struct {
	MediaType            string               `json:"mediaType"`
	VerificationMaterial VerificationMaterial `json:"verificationMaterial"`
	DSSEEnvelope         Envelope             `json:"dsseEnvelope"`
}

// VerificationMaterial names the key that signed the bundle.
type VerificationMaterial struct {
	PublicKey PublicKeyID `json:"publicKey"`
}

// PublicKeyID is the hint of the signing key (see Hint).
type PublicKeyID struct {
	Hint string `json:"hint"`
}

// Envelope is a DSSE envelope.
type Envelope struct {
	Payload     string      `json:"payload"`
	PayloadType string      `json:"payloadType"`
	Signatures  []Signature `json:"signatures"`
}

// Signature is one DSSE signature. Its keyid stays empty: verifiers skip a
// signature whose keyid is not the key's own fingerprint.
type Signature struct {
	Sig   string `json:"sig"`
	KeyID string `json:"keyid"`
}

// PAE is DSSE's pre-authentication encoding of a payload: what is signed.
func PAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DSSEv1 ")
	b.WriteString(strconv.Itoa(len(payloadType)))
	b.WriteByte(' ')
	b.WriteString(payloadType)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(payload)))
	b.WriteByte(' ')
	b.Write(payload)
	return b.Bytes()
}

// Sign signs the statement's bytes with key and returns the bundle as JSON:
// the bytes signed are the bytes the bundle carries.
func Sign(st Statement, key *ecdsa.PrivateKey) ([]byte, error) {
	payload, err := st.Marshal()
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256(PAE(PayloadType, payload))
	sig, err := ecdsa.SignASN1(rand.Reader, key, digest[:])
	if err != nil {
		return nil, fmt.Errorf("attest: sign: %w", err)
	}
	b := Bundle{
		MediaType:            BundleMediaType,
		VerificationMaterial: VerificationMaterial{PublicKey: PublicKeyID{Hint: Hint(&key.PublicKey)}},
		DSSEEnvelope: Envelope{Payload: base64.StdEncoding.EncodeToString(payload), PayloadType: PayloadType,
			Signatures: []Signature{{Sig: base64.StdEncoding.EncodeToString(sig)}}},
	}
	out, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("attest: bundle: %w", err)
	}
	return append(out, '\n'), nil
}

// ErrRefused marks a bundle that does not verify, or a statement a policy
// refuses; the message says why in one line.
var ErrRefused = errors.New("refused")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// strictB64 decodes standard base64 with padding and zero padding bits:
// one text for one byte string.
var strictB64 = base64.StdEncoding.Strict()

// Verify checks a bundle against the public key and returns its statement.
// Nothing of the bundle is believed before its signature holds: the layout
// is read strictly (no unknown or missing member, nothing after it), the
// media type, key hint and payload type must be conform's, the one
// signature must verify over the payload's bytes, and only then is the
// payload read, strictly, as an in-toto test-result statement.
func Verify(data []byte, pub *ecdsa.PublicKey) (Statement, error) {
	var st Statement
	var b Bundle
	if err := decodeStrict(data, &b); err != nil {
		return st, refuse("not a Sigstore bundle: %v", err)
	}
	if err := checkMembers(data); err != nil {
		return st, refuse("not a Sigstore bundle: %v", err)
	}
	if b.MediaType != BundleMediaType {
		return st, refuse("media type %q, want %q", clipped(b.MediaType), BundleMediaType)
	}
	if want := Hint(pub); b.VerificationMaterial.PublicKey.Hint != want {
		return st, refuse("signed by another key: the bundle names key %q, --key is %q", clipped(b.VerificationMaterial.PublicKey.Hint), want)
	}
	env := b.DSSEEnvelope
	if env.PayloadType != PayloadType {
		return st, refuse("payload type %q, want %q", clipped(env.PayloadType), PayloadType)
	}
	if len(env.Signatures) != 1 {
		return st, refuse("%d signatures, want 1", len(env.Signatures))
	}
	if env.Signatures[0].KeyID != "" {
		return st, refuse("signature keyid %q, want none", clipped(env.Signatures[0].KeyID))
	}
	payload, err := strictB64.DecodeString(env.Payload)
	if err != nil {
		return st, refuse("payload is not base64: %v", err)
	}
	sig, err := strictB64.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		return st, refuse("signature is not base64: %v", err)
	}
	digest := sha256.Sum256(PAE(env.PayloadType, payload))
	if !ecdsa.VerifyASN1(pub, digest[:], sig) {
		return st, refuse("the signature does not verify with --key")
	}
	if err := decodeStrict(payload, &st); err != nil {
		return st, refuse("signed payload is not a test-result statement: %v", err)
	}
	if st.Type != StatementType {
		return st, refuse("statement _type %q, want %q", clipped(st.Type), StatementType)
	}
	if st.PredicateType != PredicateType {
		return st, refuse("predicate type %q, want %q", clipped(st.PredicateType), PredicateType)
	}
	return st, nil
}

// decodeStrict reads exactly one JSON value into v: no unknown member, no
// second value after it.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("data after the JSON value")
	} else if !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// clipped keeps a quoted value from the bundle short in a message.
func clipped(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// checkMembers checks the bundle's member names exactly (encoding/json
// matches them ignoring case): every member conform writes is there, spelt
// as the bundle format spells it, and no other.
func checkMembers(data []byte) error {
	top, err := members(data, "", "mediaType", "verificationMaterial", "dsseEnvelope")
	if err != nil {
		return err
	}
	vm, err := members(top["verificationMaterial"], "verificationMaterial.", "publicKey")
	if err != nil {
		return err
	}
	if _, err := members(vm["publicKey"], "verificationMaterial.publicKey.", "hint"); err != nil {
		return err
	}
	env, err := members(top["dsseEnvelope"], "dsseEnvelope.", "payload", "payloadType", "signatures")
	if err != nil {
		return err
	}
	var sigs []json.RawMessage
	if err := json.Unmarshal(env["signatures"], &sigs); err != nil {
		return err
	}
	for _, sig := range sigs {
		m, err := members(sig, "dsseEnvelope.signatures[].", "sig", "keyid")
		if err != nil {
			return err
		}
		if _, ok := m["sig"]; !ok {
			return errors.New(`no member "dsseEnvelope.signatures[].sig"`)
		}
	}
	return nil
}

// members reads a JSON object whose member names are all among names; all
// are required but "keyid", which re-serialisers drop when empty.
func members(data []byte, prefix string, names ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	for k := range m {
		if !slices.Contains(names, k) {
			return nil, fmt.Errorf("unknown member %q", clipped(prefix+k))
		}
	}
	for _, k := range names {
		if _, ok := m[k]; !ok && k != "keyid" && k != "sig" {
			return nil, fmt.Errorf("no member %q", prefix+k)
		}
	}
	return m, nil
}
