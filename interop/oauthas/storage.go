package oauthas

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// defaultTTL is the lifetime of an access token when the client sets none.
const defaultTTL = 5 * time.Minute

// errNotFound is what the storage answers for an unknown client, token,
// code or authorization request.
var errNotFound = errors.New("oauthas: not found")

// storage is the provider's op.Storage (with client credentials), all in
// memory.
type storage struct {
	alg     jose.SignatureAlgorithm
	subject string

	mu       sync.Mutex
	keys     []*signingKey // the last one signs
	clients  map[string]*Client
	tokens   map[string]*accessToken // by jti
	requests map[string]*authRequest // by id
	codes    map[string]string       // code → request id
}

func newStorage(alg jose.SignatureAlgorithm, subject string) *storage {
	return &storage{
		alg:      alg,
		subject:  subject,
		clients:  map[string]*Client{},
		tokens:   map[string]*accessToken{},
		requests: map[string]*authRequest{},
		codes:    map[string]string{},
	}
}

// accessToken is what the provider remembers of a token it issued: the
// introspection endpoint answers from it, and revocation deletes it.
type accessToken struct {
	id, subject, clientID string
	audience, scopes      []string
	issued, expiry        time.Time
}

func (s *storage) addClient(c Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[c.ID] = &c
}

func (s *storage) client(id string) (*Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return nil, fmt.Errorf("client %q: %w", id, errNotFound)
	}
	return c, nil
}

func (s *storage) rotate() (string, error) {
	k, err := newKey(s.alg)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, k)
	return k.id, nil
}

func (s *storage) currentKeyID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[len(s.keys)-1].id
}

// approve marks an authorization request as signed in by the test user.
func (s *storage) approve(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return fmt.Errorf("authorization request %q: %w", id, errNotFound)
	}
	// A copy: the library reads the request it was given without a lock.
	done := *r
	done.subject = s.subject
	done.authTime = time.Now()
	done.done = true
	s.requests[id] = &done
	return nil
}

// issue records a new access token for req and returns its id and expiry.
func (s *storage) issue(ctx context.Context, req op.TokenRequest, clientID string) (string, time.Time, error) {
	c, err := s.client(clientID)
	if err != nil {
		return "", time.Time{}, err
	}
	ttl := c.TTL
	if ttl == 0 {
		ttl = defaultTTL
	}
	now := time.Now()
	t := &accessToken{
		id:       rand.Text(),
		subject:  req.GetSubject(),
		clientID: clientID,
		audience: req.GetAudience(),
		scopes:   req.GetScopes(),
		issued:   now,
		expiry:   now.Add(ttl),
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[t.id] = t
	return t.id, t.expiry, nil
}

// audience is the audience of a token requested by c: the RFC 8707
// resource of the request, else the client's Audience, else (nil) the
// library's default, the client ID.
func audience(ctx context.Context, c *Client) []string {
	if res := resourceFrom(ctx); len(res) > 0 {
		return res
	}
	if c.Audience != "" {
		return []string{c.Audience}
	}
	return nil
}

// granted is the part of requested that c may have.
func granted(c *Client, requested []string) []string {
	if c.Scopes == nil {
		return requested
	}
	var out []string
	for _, s := range requested {
		if slices.Contains(c.Scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

// op.ClientCredentialsStorage

func (s *storage) ClientCredentials(ctx context.Context, clientID, clientSecret string) (op.Client, error) {
	c, err := s.client(clientID)
	if err != nil {
		return nil, err
	}
	if c.Secret == "" || c.Secret != clientSecret {
		return nil, errors.New("oauthas: wrong client secret")
	}
	return &opClient{c}, nil
}

func (s *storage) ClientCredentialsTokenRequest(ctx context.Context, clientID string, scopes []string) (op.TokenRequest, error) {
	c, err := s.client(clientID)
	if err != nil {
		return nil, err
	}
	return &oidc.JWTTokenRequest{
		Subject:  clientID,
		Audience: audience(ctx, c),
		Scopes:   granted(c, scopes),
	}, nil
}

// op.AuthStorage

func (s *storage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	c, err := s.client(req.ClientID)
	if err != nil {
		return nil, err
	}
	r := &authRequest{
		id:           rand.Text(),
		clientID:     req.ClientID,
		redirectURI:  req.RedirectURI,
		state:        req.State,
		nonce:        req.Nonce,
		scopes:       granted(c, req.Scopes),
		audience:     audience(ctx, c),
		responseType: req.ResponseType,
		responseMode: req.ResponseMode,
	}
	if req.CodeChallenge != "" {
		r.challenge = &oidc.CodeChallenge{Challenge: req.CodeChallenge, Method: req.CodeChallengeMethod}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[r.id] = r
	return r, nil
}

func (s *storage) AuthRequestByID(ctx context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return nil, fmt.Errorf("authorization request %q: %w", id, errNotFound)
	}
	return r, nil
}

func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("code: %w", errNotFound)
	}
	return s.AuthRequestByID(ctx, id)
}

func (s *storage) SaveAuthCode(ctx context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

func (s *storage) DeleteAuthRequest(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

func (s *storage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	var clientID string
	switch r := req.(type) {
	case *authRequest:
		clientID = r.clientID
	case *oidc.JWTTokenRequest:
		// The client-credentials grant: the subject is the client.
		clientID = r.Subject
	default:
		return "", time.Time{}, fmt.Errorf("oauthas: token request %T not supported", req)
	}
	return s.issue(ctx, req, clientID)
}

func (s *storage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, currentRefreshToken string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("oauthas: refresh tokens not supported")
}

func (s *storage) TokenRequestByRefreshToken(ctx context.Context, refreshToken string) (op.RefreshTokenRequest, error) {
	return nil, errors.New("oauthas: refresh tokens not supported")
}

func (s *storage) TerminateSession(ctx context.Context, userID, clientID string) error { return nil }

func (s *storage) RevokeToken(ctx context.Context, tokenOrTokenID, userID, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tokenOrTokenID]
	if !ok {
		return nil // RFC 7009 §2.2: an unknown token is not an error
	}
	if t.clientID != clientID {
		return oidc.ErrInvalidClient().WithDescription("token was issued to another client")
	}
	delete(s.tokens, tokenOrTokenID)
	return nil
}

func (s *storage) GetRefreshTokenInfo(ctx context.Context, clientID, token string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

func (s *storage) SigningKey(ctx context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[len(s.keys)-1], nil
}

func (s *storage) SignatureAlgorithms(ctx context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{s.alg}, nil
}

func (s *storage) KeySet(ctx context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]op.Key, 0, len(s.keys))
	for i := len(s.keys) - 1; i >= 0; i-- {
		keys = append(keys, publicKey{s.keys[i]})
	}
	return keys, nil
}

// op.OPStorage

func (s *storage) GetClientByClientID(ctx context.Context, clientID string) (op.Client, error) {
	c, err := s.client(clientID)
	if err != nil {
		return nil, err
	}
	return &opClient{c}, nil
}

func (s *storage) AuthorizeClientIDSecret(ctx context.Context, clientID, clientSecret string) error {
	_, err := s.ClientCredentials(ctx, clientID, clientSecret)
	return err
}

func (s *storage) SetUserinfoFromScopes(ctx context.Context, userinfo *oidc.UserInfo, userID, clientID string, scopes []string) error {
	userinfo.Subject = userID
	return nil
}

func (s *storage) SetUserinfoFromToken(ctx context.Context, userinfo *oidc.UserInfo, tokenID, subject, origin string) error {
	userinfo.Subject = subject
	return nil
}

func (s *storage) SetIntrospectionFromToken(ctx context.Context, resp *oidc.IntrospectionResponse, tokenID, subject, clientID string) error {
	s.mu.Lock()
	t, ok := s.tokens[tokenID]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("token: %w", errNotFound) // revoked: inactive
	}
	if time.Now().After(t.expiry) {
		return errors.New("oauthas: token expired")
	}
	resp.Subject = t.subject
	resp.ClientID = t.clientID
	resp.Scope = t.scopes
	resp.Audience = t.audience
	if len(resp.Audience) == 0 {
		resp.Audience = []string{t.clientID}
	}
	resp.Expiration = oidc.FromTime(t.expiry)
	resp.IssuedAt = oidc.FromTime(t.issued)
	resp.NotBefore = oidc.FromTime(t.issued)
	resp.Issuer = op.IssuerFromContext(ctx)
	resp.JWTID = t.id
	resp.TokenType = oidc.BearerToken
	return nil
}

func (s *storage) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	return scopeClaim(scopes), nil
}

// GetPrivateClaimsFromRequest adds RFC 9068's "scope" claim, which the
// library leaves out of JWT access tokens.
func (s *storage) GetPrivateClaimsFromRequest(ctx context.Context, req op.TokenRequest, restrictedScopes []string) (map[string]any, error) {
	return scopeClaim(restrictedScopes), nil
}

func scopeClaim(scopes []string) map[string]any {
	if len(scopes) == 0 {
		return nil
	}
	return map[string]any{"scope": oidc.SpaceDelimitedArray(scopes).String()}
}

func (s *storage) GetKeyByIDAndClientID(ctx context.Context, keyID, clientID string) (*jose.JSONWebKey, error) {
	return nil, errors.New("oauthas: JWT client authentication not supported")
}

func (s *storage) ValidateJWTProfileScopes(ctx context.Context, userID string, scopes []string) ([]string, error) {
	return nil, errors.New("oauthas: JWT profile grant not supported")
}

func (s *storage) Health(ctx context.Context) error { return nil }

// authRequest is an authorization request in progress (op.AuthRequest).
type authRequest struct {
	id, clientID, redirectURI, state, nonce string
	scopes, audience                        []string
	challenge                               *oidc.CodeChallenge
	responseType                            oidc.ResponseType
	responseMode                            oidc.ResponseMode
	subject                                 string
	authTime                                time.Time
	done                                    bool
}

func (r *authRequest) GetID() string                         { return r.id }
func (r *authRequest) GetACR() string                        { return "" }
func (r *authRequest) GetAMR() []string                      { return []string{"pwd"} }
func (r *authRequest) GetAudience() []string                 { return r.audience }
func (r *authRequest) GetAuthTime() time.Time                { return r.authTime }
func (r *authRequest) GetClientID() string                   { return r.clientID }
func (r *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return r.challenge }
func (r *authRequest) GetNonce() string                      { return r.nonce }
func (r *authRequest) GetRedirectURI() string                { return r.redirectURI }
func (r *authRequest) GetResponseType() oidc.ResponseType    { return r.responseType }
func (r *authRequest) GetResponseMode() oidc.ResponseMode    { return r.responseMode }
func (r *authRequest) GetScopes() []string                   { return r.scopes }
func (r *authRequest) GetState() string                      { return r.state }
func (r *authRequest) GetSubject() string                    { return r.subject }
func (r *authRequest) Done() bool                            { return r.done }

// opClient is a Client as the library sees it (op.Client).
type opClient struct{ c *Client }

func (c *opClient) GetID() string                    { return c.c.ID }
func (c *opClient) RedirectURIs() []string           { return c.c.RedirectURIs }
func (c *opClient) PostLogoutRedirectURIs() []string { return nil }
func (c *opClient) ApplicationType() op.ApplicationType {
	return op.ApplicationTypeWeb
}
func (c *opClient) AuthMethod() oidc.AuthMethod {
	if c.c.Secret == "" {
		return oidc.AuthMethodNone
	}
	return oidc.AuthMethodBasic
}
func (c *opClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *opClient) GrantTypes() []oidc.GrantType {
	g := []oidc.GrantType{oidc.GrantTypeClientCredentials}
	if len(c.c.RedirectURIs) > 0 {
		g = append(g, oidc.GrantTypeCode)
	}
	return g
}
func (c *opClient) LoginURL(id string) string            { return "/login?id=" + id }
func (c *opClient) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (c *opClient) IDTokenLifetime() time.Duration       { return time.Hour }
func (c *opClient) DevMode() bool                        { return true } // http:// loopback redirects
func (c *opClient) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *opClient) ClockSkew() time.Duration             { return 0 }
func (c *opClient) IsScopeAllowed(scope string) bool {
	return c.c.Scopes == nil || slices.Contains(c.c.Scopes, scope)
}
func (c *opClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *opClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
