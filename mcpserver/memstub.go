package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// MemoryService is a placeholder until cairn/memories lands.
type MemoryService interface{}

func (s *Server) registerMemoryTools(srv *mcp.Server) {}
