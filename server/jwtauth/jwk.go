package jwtauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// minRSABits is the smallest RSA key a JWKS may hold: shorter keys are
// skipped, as RFC 7518 asks for 2048 bits or more.
const minRSABits = 2048

// jwk is one key of a JSON Web Key Set (RFC 7517), the members keel reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	// RSA (RFC 7518 §6.3)
	N string `json:"n"`
	E string `json:"e"`
	// EC and OKP (RFC 7518 §6.2, RFC 8037)
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// key is a verification key of a set: its kid, the alg the set pins it to
// (if any) and the public key.
type key struct {
	kid string
	alg string
	pub crypto.PublicKey
}

// fits reports whether k may verify a token signed with alg: the key's
// type must be the algorithm's, and a key pinned to an alg only that one.
func (k key) fits(alg string) bool {
	if k.alg != "" && k.alg != alg {
		return false
	}
	switch pub := k.pub.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		switch alg {
		case "ES256":
			return pub.Curve == elliptic.P256()
		case "ES384":
			return pub.Curve == elliptic.P384()
		case "ES512":
			return pub.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

// parseJWKS reads a key set. Keys that are not for signatures, of a type
// keel does not verify with, or malformed are skipped, with the reason in
// skipped; a set with no usable key is an error.
func parseJWKS(data []byte) (keys []key, skipped []string, err error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, nil, fmt.Errorf("jwtauth: the JWKS is not JSON: %w", err)
	}
	if set.Keys == nil {
		return nil, nil, errors.New(`jwtauth: the JWKS has no "keys" array`)
	}
	for i, raw := range set.Keys {
		var j jwk
		if err := json.Unmarshal(raw, &j); err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d: %v", i, err))
			continue
		}
		if j.Use != "" && j.Use != "sig" {
			continue // an encryption key, never one to verify with
		}
		pub, err := j.publicKey()
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d (kid %q): %v", i, j.Kid, err))
			continue
		}
		keys = append(keys, key{kid: j.Kid, alg: j.Alg, pub: pub})
	}
	if len(keys) == 0 {
		msg := "jwtauth: the JWKS has no RSA, EC (P-256, P-384, P-521) or Ed25519 signing key"
		if len(skipped) > 0 {
			msg += ": " + strings.Join(skipped, "; ")
		}
		return nil, skipped, errors.New(msg)
	}
	return keys, skipped, nil
}

func (j jwk) publicKey() (crypto.PublicKey, error) {
	switch j.Kty {
	case "RSA":
		n, err := b64Int(j.N, "n")
		if err != nil {
			return nil, err
		}
		e, err := b64Int(j.E, "e")
		if err != nil {
			return nil, err
		}
		if !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || e.Bit(0) == 0 {
			return nil, errors.New("RSA exponent e is not a small odd number")
		}
		if n.BitLen() < minRSABits {
			return nil, fmt.Errorf("RSA key of %d bits; want at least %d", n.BitLen(), minRSABits)
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		var curve elliptic.Curve
		switch j.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return nil, fmt.Errorf("EC curve %q; want P-256, P-384 or P-521", j.Crv)
		}
		size := (curve.Params().BitSize + 7) / 8
		x, err := b64Bytes(j.X, "x")
		if err != nil {
			return nil, err
		}
		y, err := b64Bytes(j.Y, "y")
		if err != nil {
			return nil, err
		}
		if len(x) != size || len(y) != size {
			return nil, fmt.Errorf("EC coordinates of %d and %d bytes; want %d", len(x), len(y), size)
		}
		// The uncompressed point form: ParseUncompressedPublicKey checks
		// the point is on the curve.
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
		if err != nil {
			return nil, fmt.Errorf("EC key: %w", err)
		}
		return pub, nil
	case "OKP":
		if j.Crv != "Ed25519" {
			return nil, fmt.Errorf("OKP curve %q; want Ed25519", j.Crv)
		}
		x, err := b64Bytes(j.X, "x")
		if err != nil {
			return nil, err
		}
		if len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("Ed25519 key of %d bytes; want %d", len(x), ed25519.PublicKeySize)
		}
		return ed25519.PublicKey(x), nil
	default:
		return nil, fmt.Errorf("key type %q; want RSA, EC or OKP", j.Kty)
	}
}

func b64Bytes(s, name string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("member %q is missing", name)
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fmt.Errorf("member %q is not base64url: %w", name, err)
	}
	return b, nil
}

func b64Int(s, name string) (*big.Int, error) {
	b, err := b64Bytes(s, name)
	if err != nil {
		return nil, err
	}
	return new(big.Int).SetBytes(b), nil
}
