"""Deep-RL scheduler: network, PPO trainer, behaviour-cloning warm start, pretrained I/O."""
