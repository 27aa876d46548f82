"""Corporate finance: capital structure, dividend policy, earnings per share, cost of capital."""
