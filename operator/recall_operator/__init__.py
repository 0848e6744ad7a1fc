"""recall-operator: incident memory for Kubernetes that an on-call engineer can challenge."""
