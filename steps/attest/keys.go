package attest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrKey marks a key that cannot be read or is not an ECDSA P-256 key; its
// message never holds the key's bytes.
var ErrKey = errors.New("attest: key")

// GenerateKey makes an ECDSA P-256 key pair and returns the private key as
// PKCS#8 PEM and the public key as PKIX PEM: the forms cosign and the
// Sigstore verifiers read.
func GenerateKey() (private, public []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: generate: %w", ErrKey, err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: encode: %w", ErrKey, err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: encode: %w", ErrKey, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), nil
}

// ParsePrivateKey reads an ECDSA P-256 private key from PEM: PKCS#8
// ("PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY", as openssl ecparam writes).
func ParsePrivateKey(data []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%w: no PEM block", ErrKey)
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%w: a PEM %q block, want PRIVATE KEY (PKCS#8) or EC PRIVATE KEY (unencrypted)", ErrKey, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: not a private key", ErrKey)
	}
	k, ok := key.(*ecdsa.PrivateKey)
	if !ok || k.Curve != elliptic.P256() {
		return nil, fmt.Errorf("%w: not an ECDSA P-256 private key", ErrKey)
	}
	return k, nil
}

// ParsePublicKey reads an ECDSA P-256 public key from PEM (PKIX, "PUBLIC KEY").
func ParsePublicKey(data []byte) (*ecdsa.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("%w: no PEM PUBLIC KEY block", ErrKey)
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: not a public key: %w", ErrKey, err)
	}
	k, ok := key.(*ecdsa.PublicKey)
	if !ok || k.Curve != elliptic.P256() {
		return nil, fmt.Errorf("%w: not an ECDSA P-256 public key", ErrKey)
	}
	return k, nil
}

// LoadSigningKey reads the private key a --signing-key names: "env:NAME" is
// the PEM in the environment variable NAME, anything else a file.
func LoadSigningKey(spec string, lookupEnv func(string) (string, bool)) (*ecdsa.PrivateKey, error) {
	var data []byte
	if name, ok := strings.CutPrefix(spec, "env:"); ok {
		v, set := lookupEnv(name)
		if !set || v == "" {
			return nil, fmt.Errorf("%w: environment variable %s is not set", ErrKey, name)
		}
		data = []byte(v)
	} else {
		b, err := os.ReadFile(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKey, err)
		}
		data = b
	}
	k, err := ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	return k, nil
}

// LoadPublicKey reads a PEM public key file.
func LoadPublicKey(file string) (*ecdsa.PublicKey, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	k, err := ParsePublicKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return k, nil
}

// Hint names a public key in a bundle's verificationMaterial.publicKey.hint:
// base64 of the sha256 of its PKIX DER, as cosign writes it.
func Hint(pub *ecdsa.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(der)
	return base64.StdEncoding.EncodeToString(sum[:])
}
