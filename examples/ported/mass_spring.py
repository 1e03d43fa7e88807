"""Port of pytorch/examples ``differentiable_physics/mass_spring.py``: a mass-spring
system simulated by semi-implicit Euler steps and trained by Adam to end at target
positions. The gradient flows through in-place writes into non-leaf tensors inside the
loop: ``forces[i] += force`` and ``forces[:, 1] -= ...`` on a ``zeros_like`` buffer,
``positions[0] = ...`` and ``velocities[0] = ...`` on results of the integration, with
``dir_vec.norm()`` of each spring.

Ported by changing the imports (``import pyad as torch``). The plot (matplotlib) and the
argument parser are left out; ``train`` takes the options as arguments and returns the
loss of each epoch, then the final positions.

Run it with ``python examples/ported/mass_spring.py``.
"""


def run(torch, epochs=12, steps=20, lr=0.01, dt=0.01, mass=1.0, stiffness=10.0,
        num_particles=2, springs=None, gravity=9.81, seed=0, init=None, log=print):
    """Train for ``epochs`` epochs; return the loss of each and the final positions."""
    nn, optim = torch.nn, torch.optim
    torch.manual_seed(seed)

    class MassSpringSystem(nn.Module):
        def __init__(self, num_particles, springs, mass=1.0, dt=0.01, gravity=9.81, device="cpu"):
            super().__init__()
            self.device = device
            self.mass = mass
            self.springs = springs
            self.dt = dt
            self.gravity = gravity

            # Particle 0 is fixed at the origin
            self.initial_position_0 = torch.tensor([0.0, 0.0], device=device)

            # Remaining particles are trainable
            self.initial_positions_rest = nn.Parameter(torch.randn(num_particles - 1, 2, device=device))

            # Velocities
            self.velocities = torch.zeros(num_particles, 2, device=device)

        def forward(self, steps):
            positions = torch.cat([self.initial_position_0.unsqueeze(0), self.initial_positions_rest], dim=0)
            velocities = self.velocities

            for _ in range(steps):
                forces = torch.zeros_like(positions)

                # Compute spring forces
                for (i, j, rest_length, stiffness) in self.springs:
                    xi, xj = positions[i], positions[j]
                    dir_vec = xj - xi
                    dist = dir_vec.norm()
                    force = stiffness * (dist - rest_length) * dir_vec / (dist + 1e-6)
                    forces[i] += force
                    forces[j] -= force

                # Apply gravity
                forces[:, 1] -= self.gravity * self.mass

                # Semi-implicit Euler integration
                acceleration = forces / self.mass
                velocities = velocities + acceleration * self.dt
                positions = positions + velocities * self.dt

                # Fix particle 0 at origin
                positions[0] = self.initial_position_0
                velocities[0] = torch.tensor([0.0, 0.0], device=positions.device)

            return positions

    device = torch.device("cpu")
    system = MassSpringSystem(
        num_particles=num_particles,
        springs=springs if springs is not None else [(0, 1, 1.0, stiffness)],
        mass=mass,
        dt=dt,
        gravity=gravity,
        device=device,
    )
    if init is not None:
        init(system)

    optimizer = optim.Adam(system.parameters(), lr=lr)
    target_positions = torch.tensor(
        [[0.0, 0.0], [1.0, 0.0]] + [[1.0 + k, 0.0] for k in range(num_particles - 2)],
        device=device
    )

    losses = []
    for epoch in range(epochs):
        optimizer.zero_grad()
        final_positions = system(steps)
        loss = (final_positions - target_positions).pow(2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

        log(f"Epoch {epoch+1}/{epochs}, Loss: {loss.item():.6f}")

    log("\nTraining completed.")
    log(f"Final positions:\n{final_positions.detach().cpu().numpy()}")
    log(f"Target positions:\n{target_positions.cpu().numpy()}")
    return losses + final_positions.detach().cpu().numpy().ravel().tolist()


if __name__ == "__main__":
    import pyad
    run(pyad, epochs=100)
