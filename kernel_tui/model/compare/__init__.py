"""Reports compared: device columns side by side, and the marks a pinned baseline gives each kernel."""
